// `castellan hook AGENT EVENT [PAYLOAD_JSON]`: the bridge agents' hook systems call; silent, fast, always exit 0 once configured right.
import { HookUsageError, runHook } from '../../integrations/hook-command.js';
import { defineCommand, UsageError } from '../define-command.js';

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
    try {
      return await runHook(ctx, positionals);
    } catch (e) {
      if (e instanceof HookUsageError) throw new UsageError(e.message);
      throw e;
    }
  },
});
