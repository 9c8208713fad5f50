// hook.event: an in-process agent integration (castellan's pi extension) hands one agent event to the server, which does what `castellan hook AGENT EVENT` would.
import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { paneIdSchema, agentStateSchema } from '../../core/actions.js';
import { isSkip, planReport } from '../../integrations/resolve.js';
import { HARNESS_TABLES } from '../../integrations/tables.js';
import { resolvePaths } from '../../platform/paths.js';
import { descendsFromAsync } from '../../platform/proc/index.js';
import type { Connection, MethodContext } from '../context.js';
import { defineMethod } from '../define-method.js';
import { valueDeeperThan } from '../json-guard.js';
import { ApiError } from '../protocol.js';
import hookDecide from './hook-decide.js';
import paneReportAgent from './pane-report-agent.js';
import paneResetAgent from './pane-reset-agent.js';

/** Loaded on the first event, not with the method table: a server whose panes never run pi does not pay for them. */
const governance = () => import('../../integrations/govern.js');
const serverDecide = () => import('../../integrations/server-decide.js');
const agentBridge = () => import('../../integrations/agent-bridge.js');

/** As the spawned bridge takes payloads (PAYLOAD_MAX_DEPTH in integrations/hook-input.ts; a test holds them equal). */
export const HOOK_EVENT_MAX_DEPTH = 64;

/** The agents whose hook system runs inside their own process and can keep a connection open (pi's extension). */
export const IN_PROCESS_AGENTS = ['pi'] as const;
/**
 * The largest payload, as JSON characters. State events send a few hundred bytes; a tool call sends its input whole
 * (a Write carries the file), and one larger than this goes to the spawned bridge, which reads up to 8 MiB.
 */
export const HOOK_EVENT_PAYLOAD_MAX = 1024 * 1024;

function jsonLength(v: unknown): number {
  try {
    return JSON.stringify(v).length;
  } catch {
    return Infinity;
  }
}

const envValue = z.string().min(1).max(4096);
const params = z
  .object({
    pane_id: paneIdSchema,
    agent: z.enum(IN_PROCESS_AGENTS),
    event: z.string().regex(/^[A-Za-z0-9_.:-]{1,64}$/, 'an event name: letters, digits, _ . : - (up to 64)'),
    payload: z
      .record(z.string(), z.unknown())
      .refine((v) => !valueDeeperThan(v, HOOK_EVENT_MAX_DEPTH), `payload nested deeper than ${HOOK_EVENT_MAX_DEPTH} levels`)
      .refine((v) => jsonLength(v) <= HOOK_EVENT_PAYLOAD_MAX, `payload larger than ${HOOK_EVENT_PAYLOAD_MAX} characters as JSON`)
      .default({}),
    /** Microseconds since the epoch at which the agent fired the event: the server drops a report older than the last. */
    seq: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
    /** The agent's process: it must run in the pane (checked in the process table, src/platform/proc). */
    pid: z.number().int().positive().max(2 ** 31),
    /** The agent's working directory (a tool call is governed from there unless its payload names a cwd). */
    cwd: z.string().min(1).max(4096).refine((p) => isAbsolute(p) && !p.includes('\0'), 'must be an absolute path without NUL').optional(),
    /** The agent's variables that the spawned bridge would read: where governance's config, trust and audit live, the agent and goal ids. */
    env: z
      .object({ HOME: envValue, XDG_STATE_HOME: envValue, CASTELLAN_SESSION: envValue, CASTELLAN_AGENT_ID: envValue, CASTELLAN_GOAL_ID: envValue })
      .partial()
      .strict()
      .default({}),
    /** Epoch ms after which the agent has stopped waiting for a tool call's answer (and asks the spawned bridge): nothing is decided then. */
    deadline: z.number().int().nonnegative().optional(),
  })
  .strict();
type Params = z.output<typeof params>;

const result = z.object({
  /** `bridge`: part of what `castellan hook` does for this event was not done here; the caller runs the bridge for it. */
  action: z.enum(['reported', 'skipped', 'bridge']),
  state: agentStateSchema.optional(),
  reason: z.string().optional(),
  /** With `bridge`: the state report is done here (the caller tells the bridge so: payload `castellan_reported: true`). */
  reported: z.boolean().optional(),
  /** A tool call's gate, when the server decided it: `block` comes with the agent's answer. */
  gate: z.enum(['allow', 'block']).optional(),
  answer: z.object({ block: z.literal(true), reason: z.string() }).optional(),
});
type Result = z.input<typeof result>;

/** (pane, pid) pairs already checked on a connection: the check reads the process table once per pane and process, not per event. */
const verified = new WeakMap<Connection, Set<string>>();

async function checkCaller(ctx: MethodContext, p: Params): Promise<void> {
  const key = `${p.pane_id}|${p.pid}`;
  const seen = verified.get(ctx.conn);
  if (seen?.has(key)) return;
  const root = ctx.session.paneInfo(p.pane_id)?.pid;
  const ok = root === undefined ? false : await descendsFromAsync(p.pid, root);
  if (ok === false) throw new ApiError('not_allowed', `process ${p.pid} does not run in pane ${p.pane_id}`);
  const set = seen ?? new Set<string>();
  if (set.size < 64) set.add(key);
  verified.set(ctx.conn, set);
}

/** The state report, exactly as the bridge makes it (resolve.ts planReport): unless, seq, release. */
async function report(ctx: MethodContext, p: Params): Promise<Result> {
  const plan = planReport(HARNESS_TABLES[p.agent], p.event, p.payload);
  if (isSkip(plan)) return { action: 'skipped', reason: plan.skip };
  const cur = ctx.session.state().panes[p.pane_id]?.agent.state;
  if (plan.unless && cur && plan.unless.includes(cur)) return { action: 'skipped', state: plan.report.state, reason: `pane is ${cur}` };
  const reply = await paneReportAgent.handler(ctx, paneReportAgent.params.parse({ pane_id: p.pane_id, ...plan.report, seq: p.seq }));
  if (plan.release && !reply.ignored) await paneResetAgent.handler(ctx, { pane_id: p.pane_id });
  return { action: 'reported', state: plan.report.state, ...(reply.ignored ? { reason: reply.ignored } : {}) };
}

/** hook.decide for a tool event, with the params the spawned bridge would send (govern.ts governToolHook); undefined: left to the bridge. */
async function decide(ctx: MethodContext, p: Params, phase: 'pre' | 'post') {
  const { decisionReason, governedAgentId, toolCallOf, toolSucceeded } = await governance();
  const { decideParams } = await serverDecide();
  const call = toolCallOf(p.agent, p.payload);
  const given = typeof p.payload.cwd === 'string' ? p.payload.cwd : undefined;
  if (!p.cwd && !(given && isAbsolute(given))) return undefined;
  let paths;
  try {
    paths = resolvePaths({ env: { HOME: p.env.HOME, XDG_STATE_HOME: p.env.XDG_STATE_HOME, CASTELLAN_SESSION: p.env.CASTELLAN_SESSION } });
  } catch {
    return undefined;
  }
  const params = decideParams(
    {
      phase,
      tool: call.tool,
      argv: call.argv,
      cwd: resolve(p.cwd ?? '/', given ?? '.'),
      toolInput: call.toolInput,
      ...(phase === 'post' ? { success: toolSucceeded(p.payload) } : {}),
      agentId: governedAgentId(p.agent, p.env, p.payload),
      paneId: p.pane_id,
      prompt: 'ui',
      env: p.env,
      paths,
    },
    p.pid,
  );
  const req = hookDecide.params.safeParse({ ...params, ...(p.deadline !== undefined ? { deadline: p.deadline } : {}) });
  if (!req.success) return undefined;
  const r = await hookDecide.handler(ctx, req.data);
  return r.decided ? { ...r, why: decisionReason(call, r) } : undefined;
}

export default defineMethod({
  name: 'hook.event',
  description: [
    'For agents whose hook system runs in their own process (castellan\'s pi extension): one agent event, handled as',
    '`castellan hook AGENT EVENT` would handle it: the badge report from castellan\'s event table (seq-ordered, `pid` must',
    'run in the pane), a tool call judged and a tool result recorded by governance (hook.decide), a running agent\'s',
    'PostSampling hooks. `action: "bridge"` says what the server could not do here (a PreToolUse hook process, a question',
    'in the UI, the agent\'s own tool hooks): the caller then runs `castellan hook AGENT EVENT` for the event.',
  ].join(' '),
  params,
  result,
  handler: async (ctx, p): Promise<Result> => {
    if (!ctx.session.state().panes[p.pane_id]) throw new ApiError('pane_not_found', `no pane ${p.pane_id}`);
    await checkCaller(ctx, p);
    const { denyAnswer, toolEventKind } = await governance();
    const kind = toolEventKind(p.agent, p.event);
    // The agent's own SubagentStop hooks join governance in the bridge (govern.ts): that whole answer stays there.
    if (kind === 'pre' && p.env.CASTELLAN_AGENT_ID) return { action: 'bridge', reason: 'the agent\'s own tool hooks answer in the bridge' };
    // The badge first: it is what a person and `herd wait` are waiting for.
    const done = await report(ctx, p);
    if (kind) {
      const d = await decide(ctx, p, kind);
      if (!d) return { ...done, action: 'bridge', reported: true, reason: 'governance needs the bridge for it' };
      if (kind === 'post') return done;
      if (d.decision === 'allow') return { ...done, gate: 'allow' };
      return { ...done, gate: 'block', answer: JSON.parse(denyAnswer(p.agent, d.why).stdout!) as { block: true; reason: string } };
    }
    // A model's answer feeds that agent's PostSampling hooks; the reply does not wait (the server keeps their advice).
    // pi's other stages have nothing to answer (agent-bridge.ts agentEventAnswer).
    const bridge = p.env.CASTELLAN_AGENT_ID ? await agentBridge() : undefined;
    const agentId = bridge?.agentIdOf({ CASTELLAN_AGENT_ID: p.env.CASTELLAN_AGENT_ID });
    if (bridge && agentId && ctx.session.agents && bridge.agentStage(p.agent, p.event) === 'PostSampling') {
      ctx.session.agents
        .hook({ agentId, hookType: 'PostSampling', payload: { message: bridge.responseText(p.payload).slice(0, 200_000) }, paneId: p.pane_id })
        .catch(() => undefined);
    }
    return done;
  },
});
