// pi's extension events (sent by share/integrations/pi/castellan.ts to hook.event, else `castellan hook pi EVENT`) → castellan stages and badge states (checked against agent-lab payloads, pi 0.73.1).
import type { HarnessTable } from './types.js';

export const PI: HarnessTable = {
  agent: 'pi',
  label: 'pi',
  transport: 'castellan pi extension (in-process events, sent to the server over one kept-open socket as `hook.event`; `castellan hook pi EVENT` with payload JSON on stdin when that cannot serve)',
  // castellan's pi extension forwards pi's tool_call event ({toolName, input}) and reads only the JSON answer.
  tools: { pre: [{ event: 'tool_call', answer: { exitCode: 0, stdout: { block: true, reason: '{reason}' } } }], post: 'tool_result', name: 'toolName', input: ['input', 'args'], args: 'pi_args', prompt: 'ui' },
  // pi's prompt events cannot be answered (its extension does not wait): prompts for pi go through agent.prompt.
  promptAnswered: false,
  rows: [
    { event: 'session_start', stage: 'SessionStart', state: 'idle', install: true, evidence: 'lab', note: 'also after /new, /resume, /fork, /reload' },
    {
      event: 'session_shutdown',
      stage: 'SessionEnd',
      state: null,
      cases: [{ field: 'reason', equals: 'quit', state: 'unknown', release: true }],
      install: true,
      evidence: 'lab',
      note: 'reason quit: agent gone; new/resume/fork/reload are followed by session_start',
    },
    { event: 'resources_discover', stage: null, state: null, install: false, evidence: 'lab' },
    { event: 'input', stage: null, state: null, install: false, evidence: 'lab', note: 'an extension may handle the input without starting the agent' },
    { event: 'before_agent_start', stage: null, state: null, install: false, evidence: 'lab' },
    { event: 'agent_start', stage: 'UserPromptSubmit', state: 'working', install: true, evidence: 'lab' },
    { event: 'turn_start', stage: null, state: 'working', install: true, evidence: 'lab', note: 'each LLM call of the prompt (after tool results too)' },
    { event: 'after_provider_response', stage: null, state: null, install: false, evidence: 'lab' },
    { event: 'message_start', stage: null, state: null, install: false, evidence: 'lab' },
    { event: 'message_update', stage: null, state: null, install: false, evidence: 'lab', note: 'every streamed token' },
    { event: 'message_end', stage: 'PostSampling', state: null, install: false, evidence: 'lab' },
    { event: 'tool_execution_start', stage: null, state: 'working', install: false, evidence: 'lab', note: 'same moment as tool_call' },
    {
      event: 'tool_call',
      stage: 'PreToolUse',
      state: 'working',
      install: true,
      evidence: 'lab',
      note: 'pi has no permission prompt of its own; a gate extension asking the user fires no event (heuristics see it)',
    },
    { event: 'tool_result', stage: 'PostToolUse', state: 'working', install: true, evidence: 'lab', note: 'not after a blocked tool call (tool_execution_end only); the turn goes on' },
    { event: 'tool_execution_end', stage: null, state: 'working', install: false, evidence: 'lab' },
    { event: 'turn_end', stage: null, state: null, install: false, evidence: 'lab' },
    { event: 'agent_end', stage: 'Stop', state: 'done', install: true, evidence: 'lab', note: 'also after Esc (last message stopReason "aborted")' },
    { event: 'session_before_compact', stage: 'PreCompact', state: null, install: false, evidence: 'docs' },
  ],
};
