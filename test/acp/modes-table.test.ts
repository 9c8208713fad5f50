// The mode and flag tables: which modes and agent flags skip the permission step, including hostile spellings.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ACP_TOOLS, classifyMode, unaskedFlags } from '../../src/acp/modes.js';

test('modes: asking, edits-only, everything, and unknown (fails closed)', () => {
  for (const id of ['default', 'plan', 'read-only', 'Ask']) assert.deepEqual(classifyMode(id).skips, [], id);
  for (const id of ['autoEdit', 'acceptEdits', 'auto_edit']) assert.deepEqual(classifyMode(id).skips, ['edit', 'delete', 'move'], id);
  for (const id of ['yolo', 'YOLO', 'bypassPermissions', 'full-access', 'dontAsk', 'auto']) assert.equal(classifyMode(id).skips, ACP_TOOLS, id);
  assert.deepEqual(classifyMode('mode-7'), { skips: ACP_TOOLS, unknown: true });
  // A friendly id does not hide what the name or description says.
  assert.equal(classifyMode('default', 'YOLO').skips, ACP_TOOLS);
  assert.equal(classifyMode('m1', 'Fast', 'Auto-approves all tools').skips, ACP_TOOLS);
  assert.deepEqual(classifyMode('plan', 'Plan', 'Read-only mode').skips, []);
  // Hostile: control characters and huge ids are classified, not crashed on.
  assert.equal(classifyMode('y\u0000o\u001bl\u0007o').skips, ACP_TOOLS);
  assert.equal(classifyMode('x'.repeat(1_000_000)).unknown, true);
});

test('modes of the lab agents seen over ACP: Copilot CLI (URI ids), opencode, Kilo, Qwen Code', () => {
  const uri = (m: string) => `https://agentclientprotocol.com/protocol/session-modes#${m}`;
  assert.deepEqual(classifyMode(uri('agent'), 'Agent', 'Default agent mode for conversational interactions'), { skips: [], unknown: false });
  assert.deepEqual(classifyMode(uri('plan'), 'Plan', 'Plan mode for creating and executing multi-step plans').skips, []);
  assert.equal(classifyMode(uri('autopilot'), 'Autopilot', 'Autonomous mode that enables allow-all and runs until task completion without user interaction (experimental)').skips, ACP_TOOLS);
  for (const id of ['build', 'code', 'debug']) assert.deepEqual(classifyMode(id, id, 'The default agent. Executes tools based on configured permissions.'), { skips: [], unknown: false }, id);
  assert.equal(classifyMode('orchestrator', 'orchestrator', 'Coordinate complex tasks by delegating to specialized agents in parallel.').unknown, true);
  assert.deepEqual(classifyMode('auto-edit', 'Auto Edit', 'Automatically approve file edits').skips, ['edit', 'delete', 'move']);
  assert.equal(classifyMode('yolo', 'YOLO', 'Automatically approve all tools').skips, ACP_TOOLS);
  // Only a URI's fragment is read as the mode: a plain id with a # in it is the whole id.
  assert.equal(classifyMode('yolo#agent').skips, ACP_TOOLS);
});

test('flags: the spellings that start an agent asking for nothing, and the ones that do not', () => {
  const f = (...args: string[]) => unaskedFlags(['gemini', ...args]).map((h) => h.flag);
  assert.deepEqual(f('--acp', '--yolo'), ['--yolo']);
  assert.deepEqual(f('-y'), ['-y']);
  assert.deepEqual(unaskedFlags(['/usr/bin/othertool', '-y']), [], '-y means yes-to-everything only for gemini/qwen');
  assert.deepEqual(f('--approval-mode=yolo'), ['--approval-mode=yolo']);
  assert.deepEqual(f('--approval-mode', 'auto_edit').map(String), ['--approval-mode auto_edit']);
  assert.deepEqual(f('--approval-mode', 'default'), []);
  assert.deepEqual(f('--approval-mode'), [], 'a flag with no value is the agent\'s usage error, not ours');
  assert.deepEqual(f('--yolo=false'), []);
  assert.deepEqual(unaskedFlags(['claude-agent-acp', '--permission-mode', 'bypassPermissions']).length, 1);
  assert.deepEqual(unaskedFlags(['codex-acp', '-c', 'approval_policy="never"']).map((h) => h.flag), ['approval_policy="never"']);
  assert.deepEqual(unaskedFlags(['codex', '--full-auto']).length, 1);
  assert.deepEqual(unaskedFlags(['/x/copilot', '--acp', '--allow-all-tools', '--autopilot', '--allow-all']).map((h) => h.flag), ['--allow-all-tools', '--autopilot', '--allow-all']);
  assert.deepEqual(unaskedFlags(['opencode', 'acp', '--allow-all']), [], 'Copilot\'s flags are Copilot\'s');
  // After `--` the words are the agent's arguments to something else (a prompt, a file name).
  assert.deepEqual(f('--acp', '--', '--yolo'), []);
  assert.deepEqual(unaskedFlags([]), []);
});
