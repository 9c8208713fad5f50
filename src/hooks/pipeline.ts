// The governance pipeline: policy → PreToolUse hooks → plan verify → prompt for tool calls, and the session/post hooks around them.
import { eventScope, runHooks, type GovEvent } from './aggregate.js';
import { hooksFor } from './plan.js';
import { prepare, type Gov, type GovernOptions } from './context.js';
import type { HookContext } from './payload.js';
import { planFromEnvelope } from './plan-verify.js';
import { permissionFor, planRequired, worktreePermission } from './policy.js';
import { agentWorktreeAt } from '../worktree/where.js';

export type { GovernOptions } from './context.js';
export type { GovEvent } from './aggregate.js';

export type Decision = 'allow' | 'deny' | 'ask';
/** Which stage settled the decision. */
export type DecisionSource = 'policy' | 'hook' | 'plan_verify' | 'prompt';

export interface PreToolUseInput {
  /** The tool's name as the policy knows it (`shell`, `exec`, an MCP tool name...). */
  tool: string;
  argv: readonly string[];
  agentId?: string;
  paneId?: string;
  /** Where the tool would run; the config (and so the policy and hooks) is found from here. */
  cwd: string;
  /** The call's args envelope; `workflow_plan` / `tool_workflow` (and `workflow_step`) are read from it. */
  toolInput?: unknown;
  goalId?: string;
  /** The caller could not even read the plan it was given (a bad --plan file): a required plan check denies with this. */
  planError?: string;
}

export interface PreToolUseResult {
  decision: Decision;
  reason?: string;
  source: DecisionSource;
  /** Every event of this call, in order (hook_inert, hook_run, PlanVerifyPassed/Denied, governance_decision). */
  events: GovEvent[];
}

export interface PostToolUseInput {
  tool: string;
  argv: readonly string[];
  success: boolean;
  exitCode?: number | null;
  agentId?: string;
  paneId?: string;
  cwd: string;
  goalId?: string;
}

export interface StepResult {
  /** false: a hook failed; `reason` is its stderr. */
  ok: boolean;
  reason?: string;
  events: GovEvent[];
}

export interface SessionStartInput {
  goalId: string;
  plugin: string;
  paneId?: string;
  cwd: string;
  command?: readonly string[];
  /** A sub-harness session: the pane that delegated it, and its depth in the tree. */
  parentPane?: string;
  depth?: number;
  /** The agent comes back into an earlier conversation after a restart (src/restore). */
  resumed?: boolean;
}

export interface SessionEndInput {
  goalId: string;
  plugin: string;
  /** `ok` (exit 0), `failed` (non-zero exit), `killed` (signal), `closed` (its pane closed) or `error` (could not start). */
  status: string;
  exitCode?: number | null;
  signal?: string | null;
  paneId?: string;
  cwd: string;
  parentPane?: string;
  depth?: number;
}

const goalFrom = (g: Gov, explicit?: string) => explicit ?? (g.env.CASTELLAN_GOAL_ID || undefined);

/** Hooks learn whether the call happens in an agent's worktree (from the marker git keeps for it, not from the caller's word). */
function hookCtx(g: Gov, c: Omit<HookContext, 'session' | 'socket'>): HookContext {
  const wt = agentWorktreeAt(c.cwd);
  return { ...c, session: g.paths.session, socket: g.paths.socket, ...(wt ? { worktree: wt.worktree, branch: wt.branch } : {}) };
}

const RANK = { allow: 0, prompt: 1, deny: 2 } as const;

/** The tool's permission, made stricter by `[governance.worktree]` when the call runs inside an agent's worktree. */
function permissionIn(g: Gov, tool: string, argv: readonly string[], cwd: string) {
  const base = permissionFor(tool, g.governance.permissions);
  const wt = Object.keys(g.governance.worktree ?? {}).length ? agentWorktreeAt(cwd) : undefined;
  const w = wt ? worktreePermission(tool, argv, g.governance.worktree) : undefined;
  if (w && RANK[w.permission] > RANK[base.permission]) return { permission: w.permission, row: `[governance.worktree] "${w.rule}" = "${w.permission}", in the agent worktree of ${wt!.branch}` };
  return { permission: base.permission, row: `[governance.permissions] ${base.rule} = "${base.permission}"` };
}

function stepFrom(toolInput: unknown): string | undefined {
  if (!toolInput || typeof toolInput !== 'object') return undefined;
  const s = (toolInput as Record<string, unknown>).workflow_step;
  return typeof s === 'string' ? s : undefined;
}

/**
 * Decides one tool call. Order: a `deny` permission ends it at once (no hook runs for a call that cannot
 * happen); PreToolUse hooks (a non-zero exit denies, its stderr the reason); plan verify for high-risk
 * tools (fails closed); then `prompt` asks the user (a passing plan never turns a prompt into allow).
 */
export async function governPreToolUse(input: PreToolUseInput, opts: GovernOptions = {}): Promise<PreToolUseResult> {
  return (await preToolUse(input, opts, false))!;
}

/**
 * The same decision where nothing may run: undefined (and nothing emitted or audited) when it would need a
 * PreToolUse hook process or a question in the castellan UI. The server answers hook.decide with it, since a
 * hook must run in the agent's environment and the bridge asks the UI as it always has.
 */
export async function decidePreToolUse(input: PreToolUseInput, opts: GovernOptions = {}): Promise<PreToolUseResult | undefined> {
  return preToolUse(input, opts, true);
}

async function preToolUse(input: PreToolUseInput, opts: GovernOptions, runNothing: boolean): Promise<PreToolUseResult | undefined> {
  let g: Gov;
  try {
    g = prepare(input.cwd, opts);
  } catch (e) {
    return { decision: 'deny', source: 'policy', reason: `governance error: ${(e as Error).message}`, events: [] };
  }
  const goalId = goalFrom(g, input.goalId);
  const scope = eventScope({ paneId: input.paneId, agentId: input.agentId, tool: input.tool, goalId });
  const argv = [...input.argv];
  const finish = async (decision: Decision, source: DecisionSource, reason: string | undefined, permission: string): Promise<PreToolUseResult> => {
    g.emit({ type: 'governance_decision', decision, source, permission, argv, ...(reason ? { reason } : {}), ...scope });
    await g.done();
    return { decision, source, ...(reason ? { reason } : {}), events: g.events };
  };
  try {
    // A policy that cannot be used as written denies every call before anything else is consulted (policy-load.ts).
    if (g.broken) return await finish('deny', 'policy', g.broken, 'broken');
    const { permission, row } = permissionIn(g, input.tool, argv, input.cwd);
    if (permission === 'deny') return await finish('deny', 'policy', `the permission policy denies ${input.tool} (${row})`, permission);
    if (runNothing && (hooksFor(g.hooks, 'PreToolUse', input.tool).run.length > 0 || (permission === 'prompt' && opts.prompt !== 'defer'))) {
      await g.done();
      return undefined;
    }
    const hooks = await runHooks(g.hooks, hookCtx(g, { event: 'PreToolUse', cwd: input.cwd, paneId: input.paneId, tool: input.tool, argv, agentId: input.agentId, goalId }), input.tool, {
      env: g.env,
      stopOnFailure: true,
      emit: g.emit,
    });
    if (!hooks.ok) return await finish('deny', 'hook', hooks.reason, permission);

    if (planRequired(input.tool, g.governance)) {
      let v: ReturnType<typeof g.verifier>;
      try {
        v = input.planError
          ? { ok: false, kind: 'malformed', reason: input.planError }
          : g.verifier(planFromEnvelope(input.toolInput), { tool: input.tool, argv, step: stepFrom(input.toolInput) }, g.governance);
      } catch (e) {
        v = { ok: false, kind: 'verifier_error', reason: `plan verifier error: ${(e as Error).message}` };
      }
      if (v.ok) {
        g.emit({ type: 'PlanVerifyPassed', argv, step: v.step, ...(v.planId ? { plan_id: v.planId } : {}), ...scope });
      } else {
        g.emit({ type: 'PlanVerifyDenied', argv, kind: v.kind, reason: v.reason, ...(v.planId ? { plan_id: v.planId } : {}), ...scope });
        return await finish('deny', 'plan_verify', `plan verify: ${v.reason}`, permission);
      }
    }

    if (permission === 'prompt') {
      if (opts.prompt === 'defer') return await finish('ask', 'prompt', `the permission policy asks before ${input.tool} runs`, permission);
      const who = input.agentId ? `${input.agentId}` : 'An agent';
      const where = input.paneId ? ` in ${input.paneId}` : '';
      const a = await g.ask({
        title: `Allow ${input.tool}?`,
        message: `${who}${where} wants to run ${input.tool}: ${argv.join(' ').slice(0, 1000)}\n(in ${input.cwd})`,
        timeoutMs: opts.promptTimeoutMs ?? 60_000,
        ...(input.paneId ? { paneId: input.paneId } : {}),
      });
      return await finish(a.answer, 'prompt', a.reason, permission);
    }
    return await finish('allow', 'policy', undefined, permission);
  } catch (e) {
    // Anything unexpected in the pipeline is a denial, never a silent allow.
    return await finish('deny', 'policy', `governance error: ${(e as Error).message}`, 'error');
  }
}

/** Runs PostToolUse hooks (all of them); a failing one makes `ok` false with its stderr as the reason. */
export async function governPostToolUse(input: PostToolUseInput, opts: GovernOptions = {}): Promise<StepResult> {
  return (await postToolUse(input, opts, false))!;
}

/** governPostToolUse where nothing may run: undefined (nothing emitted) when a PostToolUse hook would run. */
export async function recordPostToolUse(input: PostToolUseInput, opts: GovernOptions = {}): Promise<StepResult | undefined> {
  return postToolUse(input, opts, true);
}

async function postToolUse(input: PostToolUseInput, opts: GovernOptions, runNothing: boolean): Promise<StepResult | undefined> {
  const g = prepare(input.cwd, opts);
  if (runNothing && hooksFor(g.hooks, 'PostToolUse', input.tool).run.length > 0) {
    await g.done();
    return undefined;
  }
  const goalId = goalFrom(g, input.goalId);
  const scope = eventScope({ paneId: input.paneId, agentId: input.agentId, tool: input.tool, goalId });
  const argv = [...input.argv];
  const r = await runHooks(
    g.hooks,
    hookCtx(g, { event: 'PostToolUse', cwd: input.cwd, paneId: input.paneId, tool: input.tool, argv, success: input.success, exitCode: input.exitCode, agentId: input.agentId, goalId }),
    input.tool,
    { env: g.env, stopOnFailure: false, emit: g.emit },
  );
  g.emit({ type: 'governance_tool_result', argv, success: input.success, exit_code: input.exitCode ?? null, hooks_ok: r.ok, ...(r.reason ? { reason: r.reason } : {}), ...scope });
  await g.done();
  return { ok: r.ok, ...(r.reason ? { reason: r.reason } : {}), events: g.events };
}

/** Runs SessionStart hooks; a failing one aborts the session start (stderr as the reason). */
export async function governSessionStart(input: SessionStartInput, opts: GovernOptions = {}): Promise<StepResult> {
  const g = prepare(input.cwd, opts);
  const scope = eventScope({ paneId: input.paneId, goalId: input.goalId });
  const r = await runHooks(g.hooks, hookCtx(g, { event: 'SessionStart', cwd: input.cwd, paneId: input.paneId, goalId: input.goalId, plugin: input.plugin, parentPane: input.parentPane, depth: input.depth, resumed: input.resumed }), input.plugin, {
    env: g.env,
    stopOnFailure: true,
    emit: g.emit,
  });
  g.emit({ type: 'governance_session', phase: 'start', plugin: input.plugin, outcome: r.ok ? 'started' : 'aborted', ...(input.command ? { command: [...input.command] } : {}), ...(r.reason ? { reason: r.reason } : {}), ...scope });
  await g.done();
  return { ok: r.ok, ...(r.reason ? { reason: r.reason } : {}), events: g.events };
}

/** Runs SessionEnd hooks (all of them) after the agent exited. */
export async function governSessionEnd(input: SessionEndInput, opts: GovernOptions = {}): Promise<StepResult> {
  const g = prepare(input.cwd, opts);
  const scope = eventScope({ paneId: input.paneId, goalId: input.goalId });
  const r = await runHooks(
    g.hooks,
    hookCtx(g, { event: 'SessionEnd', cwd: input.cwd, paneId: input.paneId, goalId: input.goalId, plugin: input.plugin, status: input.status, exitCode: input.exitCode, parentPane: input.parentPane, depth: input.depth }),
    input.plugin,
    { env: g.env, stopOnFailure: false, emit: g.emit },
  );
  g.emit({ type: 'governance_session', phase: 'end', plugin: input.plugin, status: input.status, exit_code: input.exitCode ?? null, ...(input.signal ? { signal: input.signal } : {}), hooks_ok: r.ok, ...(r.reason ? { reason: r.reason } : {}), ...scope });
  await g.done();
  return { ok: r.ok, ...(r.reason ? { reason: r.reason } : {}), events: g.events };
}
