// The hook bridge's one run: AGENT EVENT [PAYLOAD_JSON] -> state report, governance answer, the agent's own hooks.
//
// Shared by `castellan hook` in the CLI table and the fast entry (hook-main.ts) that the bin takes for it: an
// agent runs this on every tool call, so nothing here may pull in the CLI table, the API schemas or the UI.
import type { Paths } from '../platform/paths.js';
import { bridgeLog, eventSeq, parsePayload, runBridge } from './bridge.js';
import { agentEnv } from './ca-certs.js';
import { BridgeLink } from './bridge-link.js';
import { denyAnswer, denyUnreadable, governToolHook, toolEventKind, type HookAnswer } from './govern.js';
import { argvInput, gatePayload, readDeadline, readStdin } from './hook-input.js';
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

// Taken at process start, before anything else runs: concurrent hook processes are ordered by when the agent spawned them.
const SEQ = eventSeq();

/**
 * Governance must fail closed: if the pipeline itself breaks, the tool is denied (the agent shows why), never waved through.
 */
async function governHook(fn: () => Promise<HookAnswer | undefined>, stateDir: string, agent: AgentName, pre: boolean): Promise<HookAnswer | undefined> {
  try {
    return await fn();
  } catch (e) {
    bridgeLog(stateDir, `governance error: ${(e as Error).stack ?? e}`);
    if (!pre) return undefined;
    // In the agent's protocol: pi's extension reads only the JSON answer, and an exit code alone would let the tool run.
    return denyAnswer(agent, `governance failed, tool denied: ${(e as Error).message}`);
  }
}

/** Runs one hook event; resolves with the exit code (the answer, if any, is already on stdout). */
export async function runHook(agentCtx: HookContext, positionals: string[]): Promise<number> {
  // What this process runs (governance hooks, the agent's own hooks) gets the environment the agent gave the hook.
  const ctx = { ...agentCtx, env: agentEnv(agentCtx.env) };
  // Plain sessions stay untouched: not a byte read, no connection, no file.
  if (!ctx.env.CASTELLAN_ENV) return HOOK_EXIT.ok;
  const [agent, event, json] = positionals;
  if (!agent || !event || positionals.length > 3) throw new HookUsageError('expected AGENT EVENT [PAYLOAD_JSON]');
  const kind = isAgentName(agent) ? toolEventKind(agent, event) : undefined;
  const gating = kind === 'pre';
  const input = json === undefined ? await readStdin({ timeoutMs: readDeadline(ctx.env, gating) }) : argvInput(json);
  let payload: unknown;
  if (gating && isAgentName(agent)) {
    // A tool call is judged on its whole payload or not at all: what cannot be read is denied, never waved through.
    const g = input.ok ? gatePayload(agent, input.text) : { why: input.why };
    if ('why' in g) {
      bridgeLog(ctx.paths.stateDir, `${agent} ${event} pane=${ctx.env.CASTELLAN_PANE_ID ?? '-'} denied: payload unreadable (${g.why})`);
      const a = await denyUnreadable({ agent, event, why: g.why, bytes: input.bytes, env: ctx.env, cwd: ctx.cwd, paths: ctx.paths });
      writeOut(a.stdout + '\n');
      return a.exitCode;
    }
    payload = g.payload;
  } else if (!input.ok) {
    // A state-only event is dropped rather than reported from half a payload; the agent is not kept waiting.
    bridgeLog(ctx.paths.stateDir, `${agent} ${event} pane=${ctx.env.CASTELLAN_PANE_ID ?? '-'} dropped: ${input.why}`);
    return HOOK_EXIT.ok;
  } else payload = parsePayload(input.text);
  // The state report goes out first, before any governance code loads: the pane's badge follows it.
  // One connection carries the report and, for a tool call, hook.decide (pipelined: the report is written first).
  const link = new BridgeLink(ctx.paths.socket);
  const report = runBridge({ agent, event, payload, env: ctx.env, socket: ctx.paths.socket, stateDir: ctx.paths.stateDir, seq: SEQ, link });
  // Tool events also go through castellan's governance (the server decides when it can, else the pipeline here, loaded
  // only once the report is through, so its synchronous load cannot eat the report's deadlines); the answer is the only
  // thing this command ever prints.
  const governed =
    isAgentName(agent) && kind
      ? await governHook(() => governToolHook({ agent, event, payload, env: ctx.env, cwd: ctx.cwd, socket: ctx.paths.socket, paths: ctx.paths, beforeLocal: () => report, link }), ctx.paths.stateDir, agent, gating)
      : undefined;
  // A pane started by `castellan agent start` carries its agent id: that agent's own hooks answer its other events.
  const own =
    !governed && isAgentName(agent) && ctx.env.CASTELLAN_AGENT_ID
      ? await (await import('./agent-bridge.js')).agentEventAnswer({ agent, event, payload, env: ctx.env, socket: ctx.paths.socket, log: (l) => bridgeLog(ctx.paths.stateDir, l) })
      : undefined;
  await report;
  if (governed?.by && ctx.env.CASTELLAN_HOOK_DEBUG) bridgeLog(ctx.paths.stateDir, `${agent} ${event} pane=${ctx.env.CASTELLAN_PANE_ID ?? '-'} governed by the ${governed.by}`);
  if (own?.stdout) writeOut(own.stdout + '\n');
  if (governed?.stdout) writeOut(governed.stdout + '\n');
  if (governed?.stderr) writeErr(governed.stderr + '\n');
  return governed?.exitCode ?? HOOK_EXIT.ok;
}
