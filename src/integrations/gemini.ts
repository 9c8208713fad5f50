// Gemini CLI's hook events → castellan stages and badge states (checked against agent-lab payloads, Gemini CLI 0.61.0).
import type { HarnessTable } from './types.js';

export const GEMINI: HarnessTable = {
  agent: 'gemini',
  label: 'Gemini CLI',
  transport: 'settings.json hooks (command, payload JSON on stdin)',
  // Gemini has no "ask" answer: castellan asks its own UI (prompt "ui"), so only deny is ever answered.
  tools: { pre: [{ event: 'BeforeTool', answer: { exitCode: 0, stdout: { decision: 'deny', reason: '{reason}' } } }], post: 'AfterTool', name: 'tool_name', input: ['tool_input'], prompt: 'ui' },
  promptAnswered: true,
  install: { entries: 'nested', hook: (event, command, governs) => ({ type: 'command', name: `castellan-${event}`, command, timeout: governs ? 120_000 : 5000 }) },
  rows: [
    { event: 'SessionStart', stage: 'SessionStart', state: 'idle', install: true, evidence: 'lab' },
    {
      event: 'SessionEnd',
      stage: 'SessionEnd',
      state: 'unknown',
      release: true,
      cases: [{ field: 'reason', equals: 'clear', state: null }],
      install: true,
      evidence: 'lab',
      note: 'fires 3x on /quit; agent gone: unknown, then back to heuristics',
    },
    { event: 'BeforeAgent', stage: 'UserPromptSubmit', state: 'working', install: true, evidence: 'lab' },
    {
      event: 'AfterAgent',
      stage: 'Stop',
      state: 'done',
      install: true,
      evidence: 'lab',
      note: 'also after Esc while working (prompt_response "[no response text]"); not after a rejected tool',
    },
    { event: 'BeforeModel', stage: null, state: null, install: false, evidence: 'lab', note: 'every model call; BeforeAgent already says working' },
    { event: 'BeforeToolSelection', stage: null, state: null, install: false, evidence: 'lab' },
    { event: 'AfterModel', stage: 'PostSampling', state: null, install: false, evidence: 'lab', note: 'once per streamed chunk: far too chatty to install' },
    { event: 'BeforeTool', stage: 'PreToolUse', state: 'working', install: true, matcher: '.*', evidence: 'lab', note: 'fires before the permission prompt' },
    { event: 'AfterTool', stage: 'PostToolUse', state: 'working', install: true, matcher: '.*', evidence: 'lab' },
    {
      event: 'Notification',
      stage: 'Notification',
      state: null,
      cases: [{ field: 'notification_type', equals: 'ToolPermission', state: 'blocked', message: ['{details.title}: {details.command}', '{message}'] }],
      install: true,
      evidence: 'lab',
      note: 'ToolPermission when the prompt appears; nothing fires when the user rejects it (Esc)',
    },
    { event: 'PreCompress', stage: 'PreCompact', state: null, install: false, evidence: 'lab', note: 'fires every turn (trigger auto)' },
  ],
};
