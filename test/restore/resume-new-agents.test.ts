// The resume plan for opencode, Kilo, Copilot CLI and Qwen Code: flags kept, the pane's own id used, no id → nothing typed, hostile input quoted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { planReport, isSkip } from '../../src/integrations/resolve.js';
import { HARNESS_TABLES } from '../../src/integrations/tables.js';
import { planRestore, shellQuote } from '../../src/restore/plan.js';
import { resumeCommand } from '../../src/restore/resume.js';
import { SNAPSHOT_VERSION, type Snapshot } from '../../src/restore/schema.js';

// Argv as /proc shows them for the lab installs (program path forms), the session ids from agent-lab/payloads.
const CASES = [
  {
    agent: 'opencode',
    fg: ['/home/u/.cache/agent-lab/installs/opencode/node_modules/opencode-linux-x64/bin/opencode', '--model', 'mock/mock-model', '--auto', '-c', '--prompt', 'fix it', '--port', '4096', 'some/dir'],
    id: 'ses_dbb1e66c0ffenQxLfwzuFycZYN',
    want: ['opencode', '--model', 'mock/mock-model', '--auto', '--session', 'ses_dbb1e66c0ffenQxLfwzuFycZYN'],
    byHand: ['opencode', '--model', 'mock/mock-model', '--auto', '--continue'],
    event: 'session.idle',
    payload: { hook_event_name: 'session.idle', sessionID: 'ses_dbb1e66c0ffenQxLfwzuFycZYN' },
  },
  {
    agent: 'kilo',
    fg: ['/x/node_modules/@kilocode/cli-linux-x64/bin/.kilo', '-m', 'mock/mock-model', '--agent', 'code', '--worktree', 'feat', '-s', 'ses_old', '--mini'],
    id: 'ses_dbb0d17b0ffeRNSVwqL0afGF4N',
    want: ['kilo', '-m', 'mock/mock-model', '--agent', 'code', '--mini', '--session', 'ses_dbb0d17b0ffeRNSVwqL0afGF4N'],
    byHand: ['kilo', '-m', 'mock/mock-model', '--agent', 'code', '--mini', '--continue'],
    event: 'session.idle',
    payload: { hook_event_name: 'session.idle', sessionID: 'ses_dbb0d17b0ffeRNSVwqL0afGF4N' },
  },
  {
    agent: 'copilot',
    fg: ['/x/node_modules/@github/copilot-linux-x64/copilot', '--model', 'mock-model', '--allow-all-tools', '--session-id', '1111', '-p', 'one shot', '--reasoning-effort=high'],
    id: '4a3a2e1a-8e73-49a0-aa22-e717f399d2d3',
    want: ['copilot', '--model', 'mock-model', '--allow-all-tools', '--reasoning-effort=high', '--resume', '4a3a2e1a-8e73-49a0-aa22-e717f399d2d3'],
    byHand: ['copilot', '--model', 'mock-model', '--allow-all-tools', '--reasoning-effort=high', '--continue'],
    event: 'userPromptSubmitted',
    payload: { sessionId: '4a3a2e1a-8e73-49a0-aa22-e717f399d2d3', cwd: '/w', prompt: 'hi' },
  },
  {
    agent: 'qwen',
    fg: ['node', '/x/node_modules/@qwen-code/qwen-code/cli.js', '--approval-mode', 'yolo', '-m', 'mock-model', '--openai-api-key', 'sk-secret', '-r', 'old-id', 'a first prompt'],
    id: 'f8c59044-e0cc-411a-9e4b-fe1c979c9c28',
    want: ['qwen', '--approval-mode', 'yolo', '-m', 'mock-model', '--resume', 'f8c59044-e0cc-411a-9e4b-fe1c979c9c28'],
    byHand: ['qwen', '--approval-mode', 'yolo', '-m', 'mock-model', '--continue'],
    event: 'UserPromptSubmit',
    payload: { session_id: 'f8c59044-e0cc-411a-9e4b-fe1c979c9c28', hook_event_name: 'UserPromptSubmit', prompt: 'hi' },
  },
] as const;

const snap = (agent: string, fg: readonly string[], sessionId?: string): Snapshot => ({
  version: SNAPSHOT_VERSION, session: 'd', savedAt: Date.UTC(2026, 11, 5, 9, 0), cwd: '/', size: { cols: 80, rows: 24 },
  windows: [{ id: 'w1', layout: { kind: 'leaf', pane: 'w1:p1' }, active: 'w1:p1', panes: [{ id: 'w1:p1', command: ['/bin/sh'], cwd: '/', kind: 'agent', inShell: true, foreground: [...fg], agent: { name: agent, ...(sessionId ? { sessionId, sessionFrom: 'hook' as const } : {}) } }] }],
});
const plan = (s: Snapshot) => planRestore(s, { shell: ['/bin/sh'], relaunch: [], isDir: () => true, fallbackCwd: '/' }).panes.get('w1:p1')!;

/** What a POSIX shell makes of a typed line: its words, with nothing run (`set --` only splits and unquotes). */
function shellWords(line: string): string[] {
  const r = spawnSync('/bin/sh', ['-c', `set -- ${line}; for a; do printf '%s\\0' "$a"; done`], { encoding: 'utf8', timeout: 5000 });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.split('\0').slice(0, -1);
}

for (const c of CASES) {
  test(`${c.agent}: resumed into its own conversation with the flags it knows; the rest is dropped and listed`, () => {
    const r = resumeCommand(c.agent, c.fg, c.id)!;
    assert.equal(r.how, 'id');
    assert.deepEqual(r.argv, c.want);
    const p = plan(snap(c.agent, c.fg, c.id));
    assert.equal(p.typed, shellQuote(c.want));
    assert.deepEqual(shellWords(p.typed!), c.want);
    assert.deepEqual(p.agent, { name: c.agent, how: 'id', sessionId: c.id, argv: c.want });
    assert.match(p.note, new RegExp(`resuming ${c.agent}, conversation ${c.id}; not replayed: `));
  });

  test(`${c.agent}: without the pane's own id nothing is typed, and the note says why and what to type by hand`, () => {
    const r = resumeCommand(c.agent, c.fg, undefined)!;
    assert.equal(r.how, 'none');
    assert.deepEqual(r.argv, []);
    assert.deepEqual(r.byHand, c.byHand);
    const p = plan(snap(c.agent, c.fg));
    assert.equal(p.typed, undefined);
    assert.equal(p.agent, undefined);
    assert.match(p.note, new RegExp(`${c.agent} was running; not resumed: no hook told castellan its conversation id .* castellan does not guess`));
    assert.ok(p.note.endsWith(`to pick one yourself: ${shellQuote(c.byHand)}`), p.note);
    // An id that is not a plain id counts as none: never typed, never a guess.
    for (const bad of ['--evil', 'a b', 'x;rm -rf ~', 'id\u001b[2J', 'x'.repeat(129)]) assert.equal(resumeCommand(c.agent, c.fg, bad)!.how, 'none', bad);
  });

  test(`${c.agent}: the hook bridge's report carries the id the payload names (what restore resumes by)`, () => {
    const r = planReport(HARNESS_TABLES[c.agent], c.event, c.payload);
    assert.ok(!isSkip(r), JSON.stringify(r));
    assert.equal(r.report.session_id, c.id);
  });

  test(`${c.agent}: hostile recorded flag values are typed quoted (one word each), control characters and huge ones never`, () => {
    const valueFlag = c.agent === 'copilot' ? '--agent' : c.agent === 'qwen' ? '--approval-mode' : '--agent';
    const evil = ['$(touch /tmp/pwned)', '`id`', "a'b\"c; rm -rf ~ & | > < *", '~root', '-e', '#x', '\\n'];
    for (const v of evil) {
      const p = plan(snap(c.agent, [c.agent, valueFlag, v], c.id));
      assert.deepEqual(shellWords(p.typed!).slice(1, 3), [valueFlag, v], v);
    }
    // Control characters (an escape sequence, a newline that would end the typed line) and huge values are dropped.
    // 'q' x 4096: as long as capture's clip (LIMITS.arg), so it may be a cut value.
    for (const v of ['x\ny', 'a\u001b]0;t\u0007', 'z\r', 'q'.repeat(5000), 'q'.repeat(4096)]) {
      const p = plan(snap(c.agent, [c.agent, valueFlag, v, `${valueFlag}=${v}`], c.id));
      const words = shellWords(p.typed!);
      assert.ok(words.length === 3 && words[0] === c.agent, `${JSON.stringify(v).slice(0, 40)} was typed: ${p.typed!.slice(0, 80)}`);
      assert.ok(!/[\u0000-\u001f\u007f]/.test(p.typed!) && !/[\u0000-\u001f\u007f]/.test(p.note), 'nothing unprintable typed or shown');
    }
    // The note (shown dim in the pane) lists a hostile dropped prompt without its control characters and clipped.
    const p = plan(snap(c.agent, [c.agent, 'prompt\u001b[2J\n' + 'y'.repeat(1000)]));
    assert.ok(!/[\u0000-\u001f\u007f]/.test(p.note) && p.note.length < 600, p.note);
  });
}

test('the new agents are typed by bare name from PATH, never the recorded program path', () => {
  for (const c of CASES) assert.equal(resumeCommand(c.agent, c.fg, c.id)!.argv[0], c.agent);
});
