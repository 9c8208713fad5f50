// Prove-before-execute: a strict workflow-plan format and the verifier that checks a tool call against it.
import { z } from 'zod';
import { hasControls } from '../core/text.js';
import type { Governance } from './policy.js';
import { permissionFor } from './policy.js';

export const MAX_STEPS = 100;
export const MAX_PATTERN = 512;
export const MAX_ARGS = 128;

// eslint-disable-next-line no-control-regex

const stepId = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/, 'a step id is 1-64 letters, digits, "_", ".", ":" or "-"');
const toolName = z.string().regex(/^[A-Za-z0-9_.:@/-]{1,128}$/, 'a tool name is 1-128 letters, digits, "_", ".", ":", "@", "/" or "-"');
const pattern = z
  .string({ error: 'an argv pattern is a string' })
  .max(MAX_PATTERN, `an argv pattern is at most ${MAX_PATTERN} characters`)
  .refine((s) => !hasControls(s), 'an argv pattern contains a control character (plans hold symbolic steps, not data)');

export const planStepSchema = z
  .object({
    id: stepId,
    tool: toolName,
    /** Patterns for the whole argv, argv[0] included: literal, `*` (one arg), `**` (the rest; last only), globs inside an arg. */
    argv: z.array(pattern).max(MAX_ARGS, `a step has at most ${MAX_ARGS} argv patterns`),
    /** Ids of earlier steps this one depends on (symbolic references, never their data). */
    refs: z.array(stepId).max(MAX_STEPS).optional(),
    description: z.string().max(MAX_PATTERN, `a description is at most ${MAX_PATTERN} characters`).refine((s) => !hasControls(s), 'a description contains a control character (plans hold symbolic steps, not data)').optional(),
  })
  .strict();

export const workflowPlanSchema = z
  .object({
    id: z.string().max(128).refine((s) => !hasControls(s), 'the plan id contains a control character').optional(),
    steps: z.array(planStepSchema).min(1, 'a plan needs at least one step').max(MAX_STEPS, `a plan has at most ${MAX_STEPS} steps`),
    /** The step this call is (optional: without it, the first step the call matches). */
    step: stepId.optional(),
  })
  .strict();

export type PlanStep = z.infer<typeof planStepSchema>;
export type WorkflowPlan = z.infer<typeof workflowPlanSchema>;

export type DenyKind = 'missing' | 'malformed' | 'live_payload' | 'not_in_plan' | 'denied_tool' | 'unresolved_ref' | 'verifier_error';

export type VerifyResult = { ok: true; planId?: string; step: string } | { ok: false; kind: DenyKind; reason: string; planId?: string };

export interface ToolCall {
  tool: string;
  argv: readonly string[];
  /** The step the caller says this call is (overrides the plan's own `step`). */
  step?: string;
}

/** The plan carried in an args envelope: `workflow_plan`, else `tool_workflow`. */
export function planFromEnvelope(input: unknown): unknown {
  if (!input || typeof input !== 'object' || Array.isArray(input)) return undefined;
  const o = input as Record<string, unknown>;
  return o.workflow_plan ?? o.tool_workflow;
}

/** Validates a plan (an object, or its JSON text). Unknown fields, control characters and oversize patterns count as live payloads. */
export function parsePlan(raw: unknown): { ok: true; plan: WorkflowPlan } | { ok: false; kind: DenyKind; reason: string } {
  if (raw === undefined || raw === null || raw === '') return { ok: false, kind: 'missing', reason: 'no workflow_plan (or tool_workflow) given for a high-risk tool' };
  let value = raw;
  if (typeof raw === 'string') {
    if (raw.length > MAX_STEPS * MAX_ARGS * 8) return { ok: false, kind: 'live_payload', reason: 'the workflow plan is far too large to be a plan' };
    try {
      value = JSON.parse(raw);
    } catch (e) {
      return { ok: false, kind: 'malformed', reason: `the workflow plan is not valid JSON: ${(e as Error).message}` };
    }
  }
  const r = workflowPlanSchema.safeParse(value);
  if (r.success) return { ok: true, plan: r.data };
  const issue = r.error.issues[0];
  const where = issue.path.length ? `${issue.path.join('.')}: ` : '';
  const live =
    issue.code === 'unrecognized_keys' ||
    (issue.code === 'too_big' && issue.origin === 'string') ||
    (issue.code === 'custom' && /control character/.test(issue.message));
  if (issue.code === 'unrecognized_keys') {
    return { ok: false, kind: 'live_payload', reason: `${where}field(s) ${issue.keys.map((k) => JSON.stringify(k)).join(', ')} not allowed: a plan holds symbolic steps (id, tool, argv patterns, refs), never data` };
  }
  return { ok: false, kind: live ? 'live_payload' : 'malformed', reason: `malformed workflow plan: ${where}${issue.message}` };
}

type GlobToken = { t: 'star' } | { t: 'one' } | { t: 'lit'; c: string };
const globCache = new Map<string, GlobToken[]>();
function globTokens(p: string): GlobToken[] {
  let toks = globCache.get(p);
  if (toks) return toks;
  toks = [];
  const chars = Array.from(p);
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i];
    if (ch === '\\' && i + 1 < chars.length) toks.push({ t: 'lit', c: chars[++i] });
    else if (ch === '*') {
      if (toks[toks.length - 1]?.t !== 'star') toks.push({ t: 'star' });
    } else if (ch === '?') toks.push({ t: 'one' });
    else toks.push({ t: 'lit', c: ch });
  }
  if (globCache.size > 2000) globCache.clear();
  globCache.set(p, toks);
  return toks;
}

/**
 * `*` any run of characters, `?` one character, `\x` a literal x. Matched with the classic
 * single-backtrack-point algorithm (O(n·m)), not a regex: a hostile plan cannot make the verifier hang.
 */
export function globMatch(p: string, s: string): boolean {
  // Bounded work: an argument this long is data, never what a symbolic glob step was written for.
  if (s.length > 65_536) return false;
  const toks = globTokens(p);
  const str = Array.from(s);
  let ti = 0;
  let si = 0;
  let starT = -1;
  let starS = 0;
  while (si < str.length) {
    const tok = toks[ti];
    if (tok && (tok.t === 'one' || (tok.t === 'lit' && tok.c === str[si]))) {
      ti++;
      si++;
    } else if (tok && tok.t === 'star') {
      starT = ti++;
      starS = si;
    } else if (starT !== -1) {
      ti = starT + 1;
      si = ++starS;
    } else return false;
  }
  while (toks[ti]?.t === 'star') ti++;
  return ti === toks.length;
}

/** Does an argv match a step's patterns? `*` alone is any one argument, `**` (last) is any rest. */
export function argvMatches(patterns: readonly string[], argv: readonly string[]): boolean {
  const rest = patterns.length > 0 && patterns[patterns.length - 1] === '**';
  const fixed = rest ? patterns.slice(0, -1) : patterns;
  if (rest ? argv.length < fixed.length : argv.length !== fixed.length) return false;
  return fixed.every((p, i) => p === '*' || (/[*?\\]/.test(p) ? globMatch(p, argv[i]) : p === argv[i]));
}

/**
 * Checks a parsed plan against the policy and the call: unique step ids, `**` only last, refs naming
 * earlier steps, no step using a denied tool, and the call being one of the steps. Pure; throws only on a
 * bug (the pipeline turns that into a denial too).
 */
export function verifyPlan(plan: WorkflowPlan, call: ToolCall, governance: Pick<Governance, 'permissions'>): VerifyResult {
  const planId = plan.id;
  const deny = (kind: DenyKind, reason: string): VerifyResult => ({ ok: false, kind, reason, ...(planId ? { planId } : {}) });
  const seen = new Set<string>();
  for (const [i, s] of plan.steps.entries()) {
    if (seen.has(s.id)) return deny('malformed', `malformed workflow plan: step id ${JSON.stringify(s.id)} is used twice`);
    const bad = s.argv.findIndex((p, j) => p === '**' && j !== s.argv.length - 1);
    if (bad !== -1) return deny('malformed', `malformed workflow plan: steps.${i}.argv.${bad}: "**" may only be the last pattern`);
    for (const ref of s.refs ?? []) {
      if (!seen.has(ref)) {
        const later = plan.steps.some((t) => t.id === ref);
        return deny('unresolved_ref', `step ${JSON.stringify(s.id)} refers to ${JSON.stringify(ref)}, which is ${later ? 'not an earlier step' : 'not a step of the plan'}`);
      }
    }
    if (permissionFor(s.tool, governance.permissions).permission === 'deny') {
      return deny('denied_tool', `step ${JSON.stringify(s.id)} uses ${JSON.stringify(s.tool)}, which the permission policy denies`);
    }
    seen.add(s.id);
  }
  const wanted = call.step ?? plan.step;
  const shown = JSON.stringify(call.argv.slice(0, 8)) + (call.argv.length > 8 ? '…' : '');
  if (wanted !== undefined) {
    const s = plan.steps.find((t) => t.id === wanted);
    if (!s) return deny('not_in_plan', `the call names step ${JSON.stringify(wanted)}, which is not in the plan`);
    if (s.tool !== call.tool || !argvMatches(s.argv, call.argv)) {
      return deny('not_in_plan', `${call.tool} ${shown} does not match step ${JSON.stringify(wanted)} (${s.tool} ${JSON.stringify(s.argv)})`);
    }
    return { ok: true, step: s.id, ...(planId ? { planId } : {}) };
  }
  const s = plan.steps.find((t) => t.tool === call.tool && argvMatches(t.argv, call.argv));
  if (!s) return deny('not_in_plan', `${call.tool} ${shown} is not a step of the workflow plan`);
  return { ok: true, step: s.id, ...(planId ? { planId } : {}) };
}

/** parsePlan + verifyPlan, failing closed on anything unexpected. */
export function checkCall(rawPlan: unknown, call: ToolCall, governance: Pick<Governance, 'permissions'>): VerifyResult {
  try {
    const parsed = parsePlan(rawPlan);
    if (!parsed.ok) return parsed;
    return verifyPlan(parsed.plan, call, governance);
  } catch (e) {
    return { ok: false, kind: 'verifier_error', reason: `plan verifier error: ${(e as Error).message}` };
  }
}
