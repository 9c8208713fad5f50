// GitHub Copilot CLI's hook events (~/.copilot/settings.json) → castellan stages and badge states (checked against agent-lab payloads, Copilot CLI 1.0.102).
import type { HarnessTable } from './types.js';

export const COPILOT: HarnessTable = {
  agent: 'copilot',
  label: 'Copilot CLI',
  transport: 'settings.json hooks (`{type: "command", bash, timeoutSec}` per event, payload JSON on stdin)',
  // preToolUse fires before Copilot's permission dialog; a deny is `{"permissionDecision": "deny", ...}` on stdout (lab:
  // `✗ Shell … Denied by preToolUse hook: <reason>`). Its "ask" is not checked here, so castellan asks in its own UI.
  tools: {
    pre: [{ event: 'preToolUse', answer: { exitCode: 0, stdout: { permissionDecision: '{decision}', permissionDecisionReason: '{reason}' } } }],
    post: 'postToolUse',
    name: 'toolName',
    input: ['toolArgs', 'toolInput'],
    session: 'sessionId',
    prompt: 'ui',
  },
  promptAnswered: false,
  live:
    'verified live (agent-lab, Copilot CLI 1.0.102 in a castellan pane, `castellan integrations install copilot`): with shell = "deny" a shell call is stopped at preToolUse, ' +
    '`Denied by preToolUse hook: castellan: …` on its screen, nothing run; allowed, it runs after Copilot\'s own dialog; each call audited once; badge working → blocked → done',
  install: { entries: 'flat', hook: (_e, command, governs) => ({ type: 'command', bash: command, timeoutSec: governs ? 120 : 10 }) },
  rows: [
    {
      event: 'sessionStart',
      stage: 'SessionStart',
      state: null,
      install: false,
      evidence: 'lab',
      note: 'fires at the first prompt (not at launch), right before userPromptSubmitted: nothing to add',
    },
    { event: 'sessionEnd', stage: 'SessionEnd', state: 'unknown', release: true, install: true, evidence: 'lab', note: 'agent gone: unknown, then back to heuristics' },
    { event: 'userPromptSubmitted', stage: 'UserPromptSubmit', state: 'working', install: true, evidence: 'lab' },
    { event: 'preToolUse', stage: 'PreToolUse', state: 'working', install: true, evidence: 'lab', note: 'fires before the permission dialog, and before a hook denial' },
    {
      event: 'permissionRequest',
      stage: 'PermissionRequest',
      state: 'blocked',
      message: ['{toolName}: {toolInput.command}', '{toolName}'],
      install: true,
      evidence: 'lab',
      note: 'when the dialog appears; nothing fires when the user rejects it (Esc) — heuristics must notice',
    },
    {
      event: 'notification',
      stage: 'Notification',
      state: null,
      cases: [{ field: 'notification_type', equals: 'permission_prompt', state: 'blocked', message: ['{message}'] }],
      install: false,
      evidence: 'lab',
      note: 'permission_prompt right after permissionRequest: redundant',
    },
    { event: 'postToolUse', stage: 'PostToolUse', state: 'working', install: true, evidence: 'lab' },
    { event: 'postToolUseFailure', stage: 'PostToolUse', state: 'working', install: true, evidence: 'docs', note: 'a failed tool: the turn goes on' },
    { event: 'agentStop', stage: 'Stop', state: 'done', install: true, evidence: 'lab', note: 'not after a rejection or an interrupt' },
    { event: 'subagentStart', stage: 'SubagentStart', state: null, install: false, evidence: 'docs' },
    { event: 'subagentStop', stage: 'SubagentStop', state: null, install: false, evidence: 'docs' },
    { event: 'preCompact', stage: 'PreCompact', state: null, install: false, evidence: 'docs' },
    { event: 'errorOccurred', stage: null, state: null, install: false, evidence: 'docs' },
  ],
};
