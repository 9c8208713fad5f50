// Claude Code's hook events → castellan stages and badge states (checked against agent-lab payloads, Claude Code 2.1.332).
import type { HarnessTable } from './types.js';

/** Claude's (and Codex's) PreToolUse answer: hookSpecificOutput.permissionDecision allow / deny / ask, with the reason. */
export const HSO_ANSWER = { exitCode: 0, stdout: { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: '{decision}', permissionDecisionReason: '{reason}' } } };

const TOOL = ['{tool_name}: {tool_input.command}', '{tool_name}: {tool_input.file_path}', '{tool_name}'];

export const CLAUDE: HarnessTable = {
  agent: 'claude',
  label: 'Claude Code',
  transport: 'settings.json hooks (command, payload JSON on stdin)',
  // Claude has its own permission dialog and accepts an "ask" answer: a castellan "prompt" defers to it.
  tools: { pre: [{ event: 'PreToolUse', answer: HSO_ANSWER }], post: 'PostToolUse', name: 'tool_name', input: ['tool_input'], prompt: 'defer' },
  promptAnswered: true,
  install: { entries: 'nested', hook: (_e, command, governs) => ({ type: 'command', command, timeout: governs ? 120 : 10 }) },
  rows: [
    {
      event: 'SessionStart',
      stage: 'SessionStart',
      state: 'idle',
      cases: [{ field: 'source', equals: 'compact', state: null }],
      install: true,
      evidence: 'lab',
      note: 'source startup/resume/clear → idle; compact can happen mid-turn (auto-compact), so it reports nothing',
    },
    {
      event: 'SessionEnd',
      stage: 'SessionEnd',
      state: 'unknown',
      release: true,
      cases: [{ field: 'reason', equals: 'clear', state: null }],
      install: true,
      evidence: 'lab',
      note: 'agent gone: unknown, then the pane goes back to heuristics; /clear (reason clear) is followed by SessionStart{source:clear}',
    },
    { event: 'UserPromptSubmit', stage: 'UserPromptSubmit', state: 'working', install: true, evidence: 'lab' },
    { event: 'PreToolUse', stage: 'PreToolUse', state: 'working', install: true, matcher: '*', evidence: 'lab', note: 'fires before the permission prompt, and before a hook denial' },
    {
      event: 'PermissionRequest',
      stage: 'PermissionRequest',
      state: 'blocked',
      message: TOOL,
      install: true,
      matcher: '*',
      evidence: 'lab',
      note: 'when the prompt appears; nothing fires when the user rejects it (Esc) — heuristics must notice',
    },
    { event: 'PostToolUse', stage: 'PostToolUse', state: 'working', install: true, matcher: '*', evidence: 'lab' },
    {
      event: 'PostToolUseFailure',
      stage: 'PostToolUse',
      state: 'working',
      cases: [{ field: 'is_interrupt', present: true, state: 'idle' }],
      install: true,
      matcher: '*',
      evidence: 'docs',
      note: 'a failed tool: the turn goes on; an interrupted one (is_interrupt) ends it',
    },
    { event: 'PostToolBatch', stage: 'PostToolUse', state: 'working', install: false, evidence: 'lab', note: 'follows PostToolUse; redundant' },
    {
      event: 'PermissionDenied',
      stage: null,
      state: 'working',
      install: false,
      evidence: 'docs',
      note: 'auto-mode classifier / rule denial: Claude carries on with the turn',
    },
    {
      event: 'Notification',
      stage: 'Notification',
      state: null,
      cases: [
        { field: 'notification_type', equals: 'permission_prompt', state: 'blocked', message: ['{message}'] },
        { field: 'notification_type', equals: ['agent_needs_input', 'elicitation_dialog'], state: 'blocked', message: ['{message}'] },
        { field: 'notification_type', equals: 'idle_prompt', state: 'idle', unless: ['done', 'idle'] },
      ],
      install: true,
      evidence: 'lab',
      note: 'permission_prompt ~6 s after the prompt; idle_prompt 60 s after Stop (must not wipe an unseen done); agent_needs_input = auto-mode dialog',
    },
    { event: 'Stop', stage: 'Stop', state: 'done', install: true, evidence: 'lab', note: 'not after a rejection or an interrupt' },
    { event: 'StopFailure', stage: 'Stop', state: 'done', message: ['error: {error}', 'stopped on an error'], install: true, evidence: 'docs', note: 'the turn ended on an API error' },
    { event: 'SubagentStart', stage: 'SubagentStart', state: null, install: false, evidence: 'docs', note: 'subagent payloads carry agent_id and never change the badge' },
    { event: 'SubagentStop', stage: 'SubagentStop', state: null, install: false, evidence: 'docs' },
    { event: 'PreCompact', stage: 'PreCompact', state: null, install: false, evidence: 'docs' },
    {
      event: 'MessageDisplay',
      stage: 'PostSampling',
      state: null,
      install: false,
      evidence: 'lab',
      note: 'fires ~3 ms after Stop in the recordings: mapping it to working would undo done',
    },
  ],
};
