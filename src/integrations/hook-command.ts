// The hook bridge's one run: AGENT EVENT [PAYLOAD_JSON] -> state report, governance answer, the agent's own hooks.
//
// Shared by `castellan hook` in the CLI table and the fast entry (hook-main.ts) that the bin takes for it: an
// agent runs this on every tool call, so nothing here may pull in the CLI table, the API schemas or the UI.
import type { Paths } from '../platform/paths.js';
import { bridgeLog, eventSeq, parsePayload, runBridge } from './bridge.js';
import { agentEnv } from './ca-certs.js';
import { BridgeLink } from './bridge-link.js';
import { denyAnswer, denyUnreadable, governToolHook, NeedsBridge, toolEventKind, type HookAnswer } from './govern.js';
import { argvInput, gatePayload, notClosed, readDeadline, readStdin, type HookInput } from './hook-input.js';
import { writeErr, writeOut } from './hook-output.js';
import { isAgentName } from './tables.js';
import type { AgentName } from './types.js';

/** The CLI's exit code for success (define-command.ts EXIT.ok), without importing the CLI. */
export const HOOK_EXIT = { ok: 0 } as const;

export class HookUsageError extends Error {}

export interface HookContext {
  paths: Paths;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/**
 * How one run gets its payload and gives its answer. The bridge process takes the defaults (stdin or the argument,
 * its own stdout and stderr, its start time); the hook door (src/hookdoor/) runs the same code inside the server with
 * the payload its sh side read, a sink for the answer, the request's arrival as seq, and `serverOnly`: whatever is
 * not "the server answered" throws NeedsBridge, and the door hands the call to the Node bridge.
 */
export interface HookIO {
  input?: HookInput;
  out?: (stream: 'stdout' | 'stderr', text: string) => void;
  seq?: number;
  serverOnly?: boolean;
  /** Epoch ms past which the server must not decide (the door's requester gives up soon after). */
  deadlineAt?: number;
  /** The audited hook process (the door's requester: the pid the Node bridge would have). */
  pid?: number;
  /** Tests: GATE_ANSWER_MS. */
  gateMs?: number;
}

/**
 * A tool call the bridge has not judged by then is denied. Each step has its own deadline (connect, each reply, the
 * payload read, governance hooks, a prompt), but their sum is not bounded by one; the installed hook's timeout is 120 s,
 * and an agent whose hook times out runs the tool (issue 28). The margin covers the door's own wait and Node's start.
 */
export const GATE_ANSWER_MS = 100_000;

/** `judged`, or past `ms` the deny the caller gives. The timer is not unref'd: a judgement stuck on a promise with no handle left would otherwise let Node exit silently, with no answer, an allow. */
function byDeadline<T>(judged: Promise<T>, ms: number, late: () => T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const miss = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(late()), ms);
  });
  return Promise.race([judged, miss]).finally(() => clearTimeout(timer));
}

const stdio = (stream: 'stdout' | 'stderr', text: string) => (stream === 'stdout' ? writeOut(text) : writeErr(text));

// Taken at process start, before anything else runs: concurrent hook processes are ordered by when the agent spawned them.
const SEQ = eventSeq();

/**
 * Governance must fail closed: if the pipeline itself breaks, the tool is denied (the agent shows why), never waved through.
 */
async function governHook(fn: () => Promise<HookAnswer | undefined>, stateDir: string, agent: AgentName, event: string, pre: boolean): Promise<HookAnswer | undefined> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof NeedsBridge) throw e;
    bridgeLog(stateDir, `governance error: ${(e as Error).stack ?? e}`);
    if (!pre) return undefined;
    // In the agent's protocol: pi's extension reads only the JSON answer, and an exit code alone would let the tool run.
    return denyAnswer(agent, `governance failed, tool denied: ${(e as Error).message}`, event);
  }
}

/** Runs one hook event; resolves with the exit code (the answer, if any, is already on stdout). */
export async function runHook(agentCtx: HookContext, positionals: string[], io: HookIO = {}): Promise<number> {
  const out = io.out ?? stdio;
  // What this process runs (governance hooks, the agent's own hooks) gets the environment the agent gave the hook.
  const ctx = { ...agentCtx, env: agentEnv(agentCtx.env) };
  // Plain sessions stay untouched: not a byte read, no connection, no file. The door must not take that for the
  // server's allow (door.sh always passes CASTELLAN_ENV; a request without it is not door.sh's): the bridge governs it.
  if (!ctx.env.CASTELLAN_ENV) {
    if (io.serverOnly) throw new NeedsBridge('no CASTELLAN_ENV');
    return HOOK_EXIT.ok;
  }
  const [agent, event, json] = positionals;
  if (!agent || !event || positionals.length > 3) throw new HookUsageError('expected AGENT EVENT [PAYLOAD_JSON]');
  const kind = isAgentName(agent) ? toolEventKind(agent, event) : undefined;
  const gating = kind === 'pre';
  // CASTELLAN_HOOK_UNCLOSED=BYTES: the hook door's sh side read that much and the writer did not close stdin in time.
  const unclosed = json === undefined && !io.input && /^[0-9]{1,12}$/.test(ctx.env.CASTELLAN_HOOK_UNCLOSED ?? '') ? Number(ctx.env.CASTELLAN_HOOK_UNCLOSED) : undefined;
  const input =
    io.input ??
    (unclosed !== undefined ? notClosed(readDeadline(ctx.env, gating), unclosed) : json === undefined ? await readStdin({ timeoutMs: readDeadline(ctx.env, gating) }) : argvInput(json));
  // The door serves only what ends in the server's answer; an agent's own hooks may answer any of its events (asked
  // before anything reaches the server: once it has decided and audited a call, the bridge must not decide it again).
  if (io.serverOnly && ctx.env.CASTELLAN_AGENT_ID) throw new NeedsBridge('an agent castellan started: its own hooks may answer');
  let payload: unknown;
  if (gating && isAgentName(agent)) {
    // A tool call is judged on its whole payload or not at all: what cannot be read is denied, never waved through.
    const g = input.ok ? gatePayload(agent, input.text) : { why: input.why };
    if ('why' in g) {
      if (io.serverOnly) throw new NeedsBridge(`payload unreadable (${g.why})`);
      bridgeLog(ctx.paths.stateDir, `${agent} ${event} pane=${ctx.env.CASTELLAN_PANE_ID ?? '-'} denied: payload unreadable (${g.why})`);
      const a = await denyUnreadable({ agent, event, why: g.why, bytes: input.bytes, env: ctx.env, cwd: ctx.cwd, paths: ctx.paths });
      // In the agent's protocol: JSON on stdout, or (Qwen's PreToolUse) the reason on stderr with exit 2.
      if (a.stdout !== undefined) out('stdout', a.stdout + '\n');
      if (a.stderr !== undefined) out('stderr', a.stderr + '\n');
      return a.exitCode;
    }
    payload = g.payload;
  } else if (!input.ok) {
    if (io.serverOnly) throw new NeedsBridge(input.why);
    // A state-only event is dropped rather than reported from half a payload; the agent is not kept waiting.
    bridgeLog(ctx.paths.stateDir, `${agent} ${event} pane=${ctx.env.CASTELLAN_PANE_ID ?? '-'} dropped: ${input.why}`);
    return HOOK_EXIT.ok;
  } else payload = parsePayload(input.text);
  // The state report goes out first, before any governance code loads: the pane's badge follows it.
  // One connection carries the report and, for a tool call, hook.decide (pipelined: the report is written first).
  const link = new BridgeLink(ctx.paths.socket);
  const report = runBridge({ agent, event, payload, env: ctx.env, socket: ctx.paths.socket, stateDir: ctx.paths.stateDir, seq: io.seq ?? SEQ, link });
  // Tool events also go through castellan's governance (the server decides when it can, else the pipeline here, loaded
  // only once the report is through, so its synchronous load cannot eat the report's deadlines); the answer is the only
  // thing this command ever prints.
  const judge = () =>
    isAgentName(agent) && kind
      ? governHook(() => governToolHook({ agent, event, payload, env: ctx.env, cwd: ctx.cwd, socket: ctx.paths.socket, paths: ctx.paths, beforeLocal: () => report, link, serverOnly: io.serverOnly, deadlineAt: io.deadlineAt, pid: io.pid }), ctx.paths.stateDir, agent, event, gating).catch(
          // The door's report is through before it hands the call on (the bridge then reports with its later seq).
          async (e: unknown) => {
            await report;
            throw e;
          },
        )
      : Promise.resolve(undefined);
  // The door's run has the door's own deadline (hook.decide's deadlineAt; door.sh then hands the call on).
  const gateMs = io.gateMs ?? GATE_ANSWER_MS;
  const governed = await (gating && isAgentName(agent) && !io.serverOnly
    ? byDeadline(judge(), gateMs, () => {
        bridgeLog(ctx.paths.stateDir, `${agent} ${event} pane=${ctx.env.CASTELLAN_PANE_ID ?? '-'} denied: not judged within ${gateMs} ms`);
        return denyAnswer(agent, `the tool call was not judged within ${gateMs >= 1000 ? `${Math.round(gateMs / 1000)} s` : `${gateMs} ms`}; denied`, event);
      })
    : judge());
  // A pane started by `castellan agent start` carries its agent id: that agent's own hooks answer its other events.
  const own =
    !governed && isAgentName(agent) && ctx.env.CASTELLAN_AGENT_ID
      ? await (await import('./agent-bridge.js')).agentEventAnswer({ agent, event, payload, env: ctx.env, socket: ctx.paths.socket, log: (l) => bridgeLog(ctx.paths.stateDir, l) })
      : undefined;
  await report;
  // Which path ran this call too: the door's runs are the server-only ones (src/hookdoor/serve.ts).
  if (governed?.by && ctx.env.CASTELLAN_HOOK_DEBUG) bridgeLog(ctx.paths.stateDir, `${agent} ${event} pane=${ctx.env.CASTELLAN_PANE_ID ?? '-'} governed by the ${governed.by} via the ${io.serverOnly ? 'door' : 'Node bridge'}`);
  if (own?.stdout) out('stdout', own.stdout + '\n');
  if (governed?.stdout) out('stdout', governed.stdout + '\n');
  if (governed?.stderr) out('stderr', governed.stderr + '\n');
  return governed?.exitCode ?? HOOK_EXIT.ok;
}
