// `castellan hook AGENT EVENT [PAYLOAD_JSON]`: the bridge agents' hook systems call; silent, fast, always exit 0 once configured right.
import { eventSeq, parsePayload, readStdin, runBridge } from '../../integrations/bridge.js';
import { defineCommand, EXIT, UsageError } from '../define-command.js';

// Taken at process start, before anything else runs: concurrent hook processes are ordered by when the agent spawned them.
const SEQ = eventSeq();

export default defineCommand({
  name: 'hook',
  usage: 'castellan hook AGENT EVENT [PAYLOAD_JSON]',
  summary: 'Report an agent hook event (payload JSON on stdin, or as the last argument) as the pane\'s agent state.',
  details: [
    'AGENT is claude, codex, gemini or pi; EVENT is the agent\'s own event name (Stop, PreToolUse, notify, agent_end, ...).',
    'Outside a castellan pane (CASTELLAN_ENV unset) it does nothing. Inside one it sends pane.report_agent for',
    'CASTELLAN_PANE_ID with source "hook" and a monotonic seq. It prints nothing and exits 0 even when the server is',
    'down (connect timeout 300 ms); failures go to hook-bridge.log in the state dir (every event with CASTELLAN_HOOK_DEBUG=1).',
    'Install it into an agent with `castellan integrations install AGENT`; see docs/integrations.md for the event tables.',
  ].join('\n'),
  positionals: true,
  run: async (ctx, { positionals }) => {
    // Plain sessions stay untouched: not a byte read, no connection, no file.
    if (!ctx.env.CASTELLAN_ENV) return EXIT.ok;
    const [agent, event, json] = positionals;
    if (!agent || !event || positionals.length > 3) throw new UsageError('expected AGENT EVENT [PAYLOAD_JSON]');
    const text = json ?? (await readStdin());
    await runBridge({ agent, event, payload: parsePayload(text), env: ctx.env, socket: ctx.paths.socket, stateDir: ctx.paths.stateDir, seq: SEQ });
    return EXIT.ok;
  },
});
