// `castellan hook AGENT EVENT [PAYLOAD_JSON]`: the bridge agents' hook systems call; silent, fast, always exit 0 once configured right.
import { bridgeLog, eventSeq, parsePayload, runBridge } from '../../integrations/bridge.js';
import { denyAnswer, denyUnreadable, governToolHook, toolEventKind, type HookAnswer } from '../../integrations/govern.js';
import { argvInput, gatePayload, readDeadline, readHookInput } from '../../integrations/hook-input.js';
import { isAgentName } from '../../integrations/tables.js';
import type { AgentName } from '../../integrations/types.js';
import { defineCommand, EXIT, UsageError } from '../define-command.js';

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

export default defineCommand({
  name: 'hook',
  usage: 'castellan hook AGENT EVENT [PAYLOAD_JSON]',
  summary: 'Report an agent hook event (payload JSON on stdin, or as the last argument) as the pane\'s agent state.',
  details: [
    'AGENT is claude, codex, gemini or pi; EVENT is the agent\'s own event name (Stop, PreToolUse, notify, agent_end, ...).',
    'Outside a castellan pane (CASTELLAN_ENV unset) it does nothing. Inside one it sends pane.report_agent for',
    'CASTELLAN_PANE_ID with source "hook" and a monotonic seq. It prints nothing and exits 0 even when the server is',
    'down (connect timeout 300 ms); failures go to hook-bridge.log in the state dir (every event with CASTELLAN_HOOK_DEBUG=1).',
    'A tool-gating event (Claude/Codex PreToolUse, Gemini BeforeTool, pi tool_call) whose payload cannot be read whole',
    '(over 8 MiB, stdin not closed within 10 s or CASTELLAN_HOOK_READ_MS, not a JSON object, no tool name or input) is',
    'denied in the agent\'s protocol and audited; any other event with such a payload is dropped (stdin read at most 1 s).',
    'In a pane started by `castellan agent start` (CASTELLAN_AGENT_ID) it also answers for that agent\'s own hooks',
    '(SessionStart context, prompt checks, tool denials; docs/agents.md).',
    'Install it into an agent with `castellan integrations install AGENT`; see docs/integrations.md for the event tables.',
  ].join('\n'),
  positionals: true,
  run: async (ctx, { positionals }) => {
    // Plain sessions stay untouched: not a byte read, no connection, no file.
    if (!ctx.env.CASTELLAN_ENV) return EXIT.ok;
    const [agent, event, json] = positionals;
    if (!agent || !event || positionals.length > 3) throw new UsageError('expected AGENT EVENT [PAYLOAD_JSON]');
    const kind = isAgentName(agent) ? toolEventKind(agent, event) : undefined;
    const gating = kind === 'pre';
    const input = json === undefined ? await readHookInput(process.stdin, { timeoutMs: readDeadline(ctx.env, gating) }) : argvInput(json);
    let payload: unknown;
    if (gating && isAgentName(agent)) {
      // A tool call is judged on its whole payload or not at all: what cannot be read is denied, never waved through.
      const g = input.ok ? gatePayload(agent, input.text) : { why: input.why };
      if ('why' in g) {
        bridgeLog(ctx.paths.stateDir, `${agent} ${event} pane=${ctx.env.CASTELLAN_PANE_ID ?? '-'} denied: payload unreadable (${g.why})`);
        const a = await denyUnreadable({ agent, event, why: g.why, bytes: input.bytes, env: ctx.env, cwd: ctx.cwd, paths: ctx.paths });
        process.stdout.write(a.stdout + '\n');
        return a.exitCode;
      }
      payload = g.payload;
    } else if (!input.ok) {
      // A state-only event is dropped rather than reported from half a payload; the agent is not kept waiting.
      bridgeLog(ctx.paths.stateDir, `${agent} ${event} pane=${ctx.env.CASTELLAN_PANE_ID ?? '-'} dropped: ${input.why}`);
      return EXIT.ok;
    } else payload = parsePayload(input.text);
    const report = runBridge({ agent, event, payload, env: ctx.env, socket: ctx.paths.socket, stateDir: ctx.paths.stateDir, seq: SEQ });
    // Tool events also go through castellan's governance; the answer is the only thing this command ever prints.
    const governed = isAgentName(agent) && kind ? await governHook(() => governToolHook({ agent, event, payload, env: ctx.env, cwd: ctx.cwd, socket: ctx.paths.socket }), ctx.paths.stateDir, agent, gating) : undefined;
    // A pane started by `castellan agent start` carries its agent id: that agent's own hooks answer its other events.
    const own =
      !governed && isAgentName(agent) && ctx.env.CASTELLAN_AGENT_ID
        ? await (await import('../../integrations/agent-bridge.js')).agentEventAnswer({ agent, event, payload, env: ctx.env, socket: ctx.paths.socket, log: (l) => bridgeLog(ctx.paths.stateDir, l) })
        : undefined;
    await report;
    if (own?.stdout) process.stdout.write(own.stdout + '\n');
    if (governed?.stdout) process.stdout.write(governed.stdout + '\n');
    if (governed?.stderr) process.stderr.write(governed.stderr + '\n');
    return governed?.exitCode ?? EXIT.ok;
  },
});
