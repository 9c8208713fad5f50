// Argument checks and human output shared by `castellan integrations install` and `... uninstall`.
import { CASTELLAN_BIN, cliArgv, findOnPath } from './command-line.js';
import { installedHooks, isNoop, type Plan, type Scope } from './install.js';
import { isAgentName } from './tables.js';
import { AGENTS, type AgentName } from './types.js';

/** The agents named on the command line, or the usage problem (the command turns it into a UsageError). */
export function parseAgents(positionals: string[]): AgentName[] | string {
  if (!positionals.length) return `name the agent(s): ${AGENTS.join(', ')} (or all)`;
  const out = new Set<AgentName>();
  for (const p of positionals) {
    if (p === 'all') AGENTS.forEach((a) => out.add(a));
    else if (isAgentName(p)) out.add(p);
    else return `unknown agent "${p}": expected ${AGENTS.join(', ')} or all`;
  }
  return [...out];
}

export function parseScope(values: Record<string, unknown>): Scope | string {
  if (values.user && values.project) return '--user and --project exclude each other';
  if (values.dir !== undefined && !values.project) return '--dir goes with --project';
  return values.project ? 'project' : 'user';
}

/** One line per file, then the plan's notes; with `detail`, what castellan's entries look like. */
export function describePlan(plan: Plan, opts: { dryRun: boolean; backups?: Record<string, string>; detail?: boolean }): string[] {
  const out: string[] = [];
  for (const ch of plan.changes) {
    const verb = isNoop(ch) ? 'unchanged' : opts.dryRun ? 'would change' : ch.after === undefined ? 'deleted' : ch.before === undefined ? 'created' : 'changed';
    out.push(`${plan.agent} (${plan.scope}): ${ch.path}: ${ch.summary} [${verb}]`);
    const backup = opts.backups?.[ch.path];
    if (backup) out.push(`  backup: ${backup}`);
    if (opts.detail && ch.after !== undefined && !isNoop(ch)) {
      if (ch.path.endsWith('.json')) {
        for (const [event, cmds] of Object.entries(installedHooks(ch.after, ch.path))) for (const c of cmds) out.push(`    ${event}: ${c}`);
      } else if (ch.path.endsWith('.toml')) {
        for (const l of ch.after.split('\n')) if (/^\s*notify\s*=/.test(l)) out.push(`    ${l}`);
      } else {
        for (const l of ch.after.split('\n')) if (l.includes('// @castellan-')) out.push(`    ${l}`);
      }
    }
  }
  for (const n of plan.notes) out.push(`  note: ${n}`);
  return out;
}

/** The options installTarget() reads, shared by `integrations install` and `install-skill`. */
export const INSTALL_OPTIONS = { user: { type: 'boolean' }, project: { type: 'boolean' }, dir: { type: 'string' }, 'dry-run': { type: 'boolean' }, 'use-path': { type: 'boolean' } } as const;

/** What both `integrations install` and `install-skill` take: agents, scope, and how the installed command runs castellan. */
export function installTarget(
  values: Record<string, unknown>,
  positionals: string[],
  env: NodeJS.ProcessEnv,
): { agents: AgentName[]; scope: Scope; argv: string[]; dryRun: boolean } | string {
  const agents = parseAgents(positionals);
  if (typeof agents === 'string') return agents;
  const scope = parseScope(values);
  if (scope !== 'user' && scope !== 'project') return scope;
  const usePath = !!values['use-path'];
  if (usePath && !findOnPath('castellan', env)) return '--use-path: there is no castellan on PATH';
  return { agents, scope, argv: cliArgv({ usePath, bin: CASTELLAN_BIN }), dryRun: !!values['dry-run'] };
}
