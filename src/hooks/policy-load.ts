// The one policy loader: from the loaded config layers, the policy in force, or a fail-closed one that says why.
import type { Diagnostic, LoadedConfig } from '../config/load.js';
import { stripControls } from '../core/text.js';
import { effectiveGovernance } from './governance-config.js';
import { compileMatcher } from './match.js';
import { planHooks, type PlannedHook } from './plan.js';
import type { Governance } from './policy.js';

export interface Policy {
  /** The permissions in force (untrusted repository files can only tighten them). */
  governance: Governance;
  hooks: PlannedHook[];
  /**
   * Set when a part of the policy could not be read as written: every gated call is then denied with this reason.
   * A typo must never widen what is allowed: `shell = "Deny"` dropped as invalid would leave `default = "allow"` in force.
   */
  broken?: string;
  /** What broke it, one line each (`castellan.toml:3: governance.permissions.shell: "Deny" is not a decision ...`). */
  problems: string[];
}

/** Sections whose keys decide what a tool call may do. */
const GATING = /^(governance|hooks)(\.|\[|$)/;
/** A top-level section that is probably one of them misspelt (`[governanse]`, `[permissions]`, `[hook]`). */
const NEAR_GATING = /^(gov|perm|hook|polic)/i;

function near(a: string, b: string): boolean {
  // Edit distance at most 2, enough for a typo; strings this short cost nothing.
  if (Math.abs(a.length - b.length) > 2) return false;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length] <= 2;
}

/** Whether this diagnostic means the policy in force differs from the one the files say. */
export function breaksPolicy(d: Diagnostic): boolean {
  // No path: the file as a whole (unreadable, a directory, binary, not TOML): whatever governance it held is unknown.
  if (!d.path) return d.severity === 'error';
  if (GATING.test(d.path)) return d.severity === 'error' || /^unknown (key|section)/.test(d.message);
  if (/^unknown section/.test(d.message)) {
    const name = d.path.replace(/^"|"$/g, '').toLowerCase();
    return NEAR_GATING.test(name) || near(name, 'governance') || near(name, 'hooks');
  }
  return false;
}

const where = (d: Pick<Diagnostic, 'file' | 'line'>) => (d.line !== undefined ? `${d.file}:${d.line}` : d.file);

/** One line per problem that breaks the policy, in the user's terms. */
export function policyProblems(loaded: Pick<LoadedConfig, 'diagnostics'>, hooks: readonly PlannedHook[]): string[] {
  const out = loaded.diagnostics.filter(breaksPolicy).map((d) => stripControls(`${where(d)}: ${d.path ? `${d.path}: ` : ''}${d.message}`));
  for (const h of hooks) {
    // A gating hook that cannot select its tools would run for none: the deny it was written for would never come.
    if (h.inert || (h.hook.event !== 'PreToolUse' && h.hook.event !== 'SessionStart')) continue;
    const c = compileMatcher(h.hook.matcher);
    if (c.kind === 'invalid') out.push(stripControls(`${h.file}: ${h.hook.event} hook ${JSON.stringify(h.id)}: matcher ${JSON.stringify(h.hook.matcher)} is not a valid regular expression (${c.error})`));
  }
  return out;
}

/** The policy in force for these layers; never throws (a loader that throws is itself a broken policy). */
export function loadPolicy(loaded: Pick<LoadedConfig, 'layers' | 'projectRoot' | 'diagnostics'>): Policy {
  try {
    const hooks = planHooks(loaded);
    const problems = policyProblems(loaded, hooks);
    const governance = effectiveGovernance(loaded);
    if (!problems.length) return { governance, hooks, problems };
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more; castellan config check lists them)` : '';
    return { governance, hooks, problems, broken: `the policy cannot be used as written, so castellan denies every tool call until it is fixed: ${problems[0]}${more}` };
  } catch (e) {
    const why = `the policy could not be loaded (${(e as Error).message}), so castellan denies every tool call`;
    return { governance: { plan_verify: { enabled: true, high_risk_tools: [], allowlisted_tools: [] }, permissions: { default: 'deny' }, worktree: {} }, hooks: [], problems: [why], broken: why };
  }
}
