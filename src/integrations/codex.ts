// OpenAI Codex CLI's hook events (hooks.json) and `notify` → castellan stages and badge states (checked against agent-lab payloads, Codex 0.171.0).
import { HSO_ANSWER } from './claude.js';
import type { HarnessTable } from './types.js';

export const CODEX: HarnessTable = {
  agent: 'codex',
  label: 'Codex CLI',
  transport: 'hooks.json (command, payload JSON on stdin) + config.toml notify (payload JSON as the last argument)',
  // Codex 0.171 rejects "ask" (and then runs the tool as if no hook existed), so castellan asks in its own UI for Codex.
  tools: { pre: [{ event: 'PreToolUse', answer: HSO_ANSWER }], post: 'PostToolUse', name: 'tool_name', input: ['tool_input'], prompt: 'ui' },
  promptAnswered: true,
  install: {
    entries: 'nested',
    hook: (event, command, governs) => ({ type: 'command', command, timeout: governs ? 120 : event === 'Interrupt' || event === 'SessionEnd' ? 3 : 10 }),
  },
  rows: [
    {
      event: 'SessionStart',
      stage: 'SessionStart',
      state: null,
      rememberThread: true,
      install: true,
      evidence: 'lab',
      note: 'fires at the first prompt (not at launch), right before UserPromptSubmit: reports nothing, remembers the main thread id',
    },
    { event: 'SessionEnd', stage: 'SessionEnd', state: 'unknown', release: true, install: true, evidence: 'lab', note: 'agent gone: unknown, then back to heuristics' },
    { event: 'UserPromptSubmit', stage: 'UserPromptSubmit', state: 'working', rememberThread: true, install: true, evidence: 'lab' },
    { event: 'PreToolUse', stage: 'PreToolUse', state: 'working', install: true, matcher: '*', evidence: 'lab' },
    {
      event: 'PermissionRequest',
      stage: 'PermissionRequest',
      state: 'blocked',
      message: ['{tool_name}: {tool_input.command}', '{tool_name}'],
      install: true,
      matcher: '*',
      evidence: 'lab',
    },
    { event: 'PostToolUse', stage: 'PostToolUse', state: 'working', install: true, matcher: '*', evidence: 'lab' },
    { event: 'Stop', stage: 'Stop', state: 'done', install: true, evidence: 'lab', note: 'not after Esc (Interrupt fires instead)' },
    { event: 'Interrupt', stage: 'Interrupt', state: 'idle', install: true, evidence: 'lab', note: 'Esc at the approval prompt or while working; no Stop follows' },
    { event: 'PreCompact', stage: 'PreCompact', state: null, install: false, evidence: 'docs' },
    { event: 'PostCompact', stage: null, state: null, install: false, evidence: 'docs' },
    { event: 'SubagentStart', stage: 'SubagentStart', state: null, install: false, evidence: 'docs' },
    { event: 'SubagentStop', stage: 'SubagentStop', state: null, install: false, evidence: 'docs' },
    {
      event: 'notify',
      stage: 'Stop',
      state: null,
      cases: [{ field: 'type', equals: 'agent-turn-complete', state: 'done', lock: false }],
      mainThreadField: 'thread-id',
      install: true,
      evidence: 'lab',
      note:
        'also fires for the hidden title thread mid-way through the first turn (dropped when the main thread is known); ' +
        'reported without the hook lock, since it also arrives when hooks.json is not trusted and no working report would ever follow',
    },
  ],
};
