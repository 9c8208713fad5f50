// Qwen Code's hook events (Claude-style, ~/.qwen/settings.json) → castellan stages and badge states (checked against agent-lab payloads, Qwen Code 0.24.4).
import type { HarnessTable } from './types.js';

const TOOL = ['{tool_name}: {tool_input.command}', '{tool_name}: {tool_input.file_path}', '{tool_name}'];

export const QWEN: HarnessTable = {
  agent: 'qwen',
  label: 'Qwen Code',
  transport: 'settings.json hooks (command, payload JSON on stdin)',
  // Qwen fires PreToolUse only after the user approved the call, so the gate is PermissionRequest (a JSON deny there
  // stops the call before anyone is asked; exit 2 is ignored). A call that needs no approval (read-only tools, yolo or
  // auto-edit mode) fires PreToolUse alone: it gates too (exit 2 + reason, as the lab checked), and a call
  // PermissionRequest allowed is not judged again there (`handsOn`).
  tools: {
    pre: [
      { event: 'PermissionRequest', answer: { exitCode: 0, stdout: { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny', message: '{reason}' } } } }, handsOn: true },
      { event: 'PreToolUse', answer: { exitCode: 2, stderr: true } },
    ],
    post: 'PostToolUse',
    name: 'tool_name',
    input: ['tool_input'],
    prompt: 'ui',
  },
  promptAnswered: false,
  live:
    'verified live (agent-lab, Qwen Code 0.24.4 in a castellan pane, `castellan integrations install qwen`): with shell = "deny" a shell call is stopped at PermissionRequest ' +
    'before any dialog, castellan\'s reason on its screen, nothing run; allowed, it runs after Qwen\'s dialog and PreToolUse takes the hand-off (one audit record); badge idle → working → blocked → done',
  install: { entries: 'nested', hook: (_e, command, governs) => ({ type: 'command', command, timeout: governs ? 120_000 : 10_000 }) },
  rows: [
    {
      event: 'SessionStart',
      stage: 'SessionStart',
      state: 'idle',
      cases: [{ field: 'source', equals: 'compact', state: null }],
      install: true,
      evidence: 'lab',
      note: 'at launch; compact can happen mid-turn, so it reports nothing',
    },
    {
      event: 'SessionEnd',
      stage: 'SessionEnd',
      state: 'unknown',
      release: true,
      cases: [{ field: 'reason', equals: 'clear', state: null }],
      install: true,
      evidence: 'lab',
      note: 'agent gone: unknown, then back to heuristics',
    },
    { event: 'UserPromptSubmit', stage: 'UserPromptSubmit', state: 'working', install: true, evidence: 'lab', note: 'also again after each tool result' },
    {
      event: 'PermissionRequest',
      stage: 'PermissionRequest',
      state: 'blocked',
      message: TOOL,
      install: true,
      matcher: '*',
      evidence: 'lab',
      note: 'before the dialog; castellan governs the call here (PreToolUse comes only after the approval)',
    },
    { event: 'PreToolUse', stage: 'PreToolUse', state: 'working', install: true, matcher: '*', evidence: 'lab', note: 'only after the user approved (or when no approval is needed)' },
    { event: 'PostToolUse', stage: 'PostToolUse', state: 'working', install: true, matcher: '*', evidence: 'lab' },
    { event: 'PostToolUseFailure', stage: 'PostToolUse', state: 'working', install: true, matcher: '*', evidence: 'docs', note: 'a failed tool: the turn goes on' },
    {
      event: 'Notification',
      stage: 'Notification',
      state: null,
      cases: [
        { field: 'notification_type', equals: 'permission_prompt', state: 'blocked', message: ['{message}'] },
        { field: 'notification_type', equals: 'idle_prompt', state: 'idle', unless: ['done', 'idle'] },
      ],
      install: true,
      evidence: 'lab',
      note: 'idle_prompt right after every Stop (must not wipe done), and after Esc at the dialog or while working (no Stop then)',
    },
    { event: 'Stop', stage: 'Stop', state: 'done', install: true, evidence: 'lab', note: 'not after a rejection or an interrupt (idle_prompt follows those)' },
    { event: 'StopFailure', stage: 'Stop', state: 'done', message: ['error: {error}', 'stopped on an error'], install: true, evidence: 'docs' },
    { event: 'SubagentStart', stage: 'SubagentStart', state: null, install: false, evidence: 'docs' },
    { event: 'SubagentStop', stage: 'SubagentStop', state: null, install: false, evidence: 'docs' },
    { event: 'PreCompact', stage: 'PreCompact', state: null, install: false, evidence: 'docs' },
    { event: 'PostCompact', stage: null, state: null, install: false, evidence: 'docs' },
  ],
};
