// Restores never pick the wrong conversation (issue 30, item 13): two agents of one kind in one directory with no id,
// or two panes recorded with one id, resume nothing and say why, with the command for each way to pick by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { planRestore } from '../../src/restore/plan.js';
import { SNAPSHOT_VERSION, type Snapshot } from '../../src/restore/schema.js';

const leaf = (pane: string) => ({ kind: 'leaf' as const, pane });
const ctx = { shell: ['/bin/bash'], relaunch: [], isDir: () => true, fallbackCwd: '/' };
type P = Snapshot['windows'][number]['panes'][number];
const agent = (id: string, name: string, cwd: string, sessionId?: string, fg: string[] = [name]): P => ({
  id,
  command: ['/bin/bash'],
  cwd,
  kind: 'agent',
  inShell: true,
  foreground: fg,
  agent: { name, ...(sessionId ? { sessionId } : {}) },
});
const snap = (panes: P[]): Snapshot => ({
  version: SNAPSHOT_VERSION,
  session: 'd',
  savedAt: 1,
  cwd: '/',
  size: { cols: 80, rows: 24 },
  windows: [{ id: 'w1', layout: panes.slice(1).reduce<any>((l, p) => ({ kind: 'split', axis: 'row', ratio: 0.5, a: l, b: leaf(p.id) }), leaf(panes[0].id)), active: panes[0].id, panes }],
});

for (const [name, latest] of [['claude', 'claude --continue'], ['codex', 'codex resume --last'], ['gemini', 'gemini --resume latest'], ['pi', 'pi --continue']] as const) {
  test(`two ${name} panes in one directory with no id: neither is resumed, each says why and what to type`, () => {
    const plan = planRestore(snap([agent('w1:p1', name, '/repo'), agent('w1:p2', name, '/repo'), agent('w1:p3', name, '/other')]), ctx);
    for (const id of ['w1:p1', 'w1:p2']) {
      const p = plan.panes.get(id)!;
      assert.equal(p.typed, undefined, `${id} typed ${p.typed}`);
      assert.match(p.note, new RegExp(`not resumed: 2 ${name} panes ran in this directory \\(w1:p1, w1:p2\\) and this one had no conversation id`));
      assert.ok(p.note.includes(latest), p.note);
    }
    // Alone in its directory, the latest conversation there is still this pane's to resume (as before).
    assert.equal(plan.panes.get('w1:p3')!.typed, latest);
  });
}

test('two panes recorded with one conversation id: neither types it; both show how to pick', () => {
  const plan = planRestore(snap([agent('w1:p1', 'claude', '/repo', 'abc', ['claude', '--model', 'x']), agent('w1:p2', 'claude', '/elsewhere', 'abc'), agent('w1:p3', 'claude', '/repo', 'def')]), ctx);
  for (const id of ['w1:p1', 'w1:p2']) {
    const p = plan.panes.get(id)!;
    assert.equal(p.typed, undefined);
    assert.match(p.note, /2 panes \(w1:p1, w1:p2\) were recorded with one conversation id, abc/);
  }
  assert.match(plan.panes.get('w1:p1')!.note, /claude --model x --resume abc or claude --model x --continue/);
  assert.equal(plan.panes.get('w1:p3')!.typed, 'claude --resume def', 'a pane with its own id resumes as before');
});

test('one pane with an id and one without in the same directory: the one with the id resumes; the other would get its neighbour\'s latest, so it does not', () => {
  const plan = planRestore(snap([agent('w1:p1', 'codex', '/repo', 'id-1'), agent('w1:p2', 'codex', '/repo')]), ctx);
  assert.equal(plan.panes.get('w1:p1')!.typed, 'codex resume id-1');
  assert.equal(plan.panes.get('w1:p2')!.typed, undefined);
  assert.match(plan.panes.get('w1:p2')!.note, /to pick yourself: codex resume --last/);
});
