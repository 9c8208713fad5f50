// The review's text, the border's worktree text, the keyed review program over fake streams, and the watch's debounce.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { outcome, pagerCommand, reviewLines, type ReviewData } from '../../src/worktree/review/model.js';
import { runReview } from '../../src/worktree/review/tui.js';
import { SummaryWatch } from '../../src/worktree/watch.js';
import { worktreeText } from '../../src/client/ui/frame-parts.js';
import { waitFor } from '../support/wait-for.js';

const data = (n: number): ReviewData => ({
  id: 'abc123',
  branch: 'castellan/claude-abc123',
  base: 'main',
  path: '/tmp/x',
  pane_id: 'w1:p2',
  agent: 'claude',
  files: Array.from({ length: n }, (_, i) => ({ path: i === 0 ? 'evil\u001b[2Jname' : `f${i}.txt`, status: i === 1 ? '?' : 'M', added: i, removed: 1 })),
  ahead: 1,
  uncommitted: 2,
});

test('review lines: header with totals, files cut to the screen, no control characters', () => {
  const l = reviewLines(data(50), { rows: 15, cols: 60 });
  assert.equal(l.length, 15);
  assert.match(l[0], /^review castellan\/claude-abc123 → main {3}agent claude/);
  assert.equal(l[2], '50 files changed, +1225 -50; 1 commit ahead; 2 uncommitted');
  assert.ok(l.every((x) => x.length <= 60 && !x.includes('\u001b')));
  assert.ok(l.some((x) => /… and \d+ more/.test(x)));
  assert.ok(l.some((x) => /new +\+1 +-1 {2}f1\.txt/.test(x)), 'untracked files read as new');
  assert.match(outcome('merge', { merged: false, conflicts: ['a', 'b'] }), /^not merged: conflicts in a, b — the base is unchanged/);
  assert.match(outcome('merge', { merged: true, mode: 'fast-forward', commit: '0123456789abcdef' }), /^merged \(fast-forward\) at 0123456789$/);
  assert.equal(pagerCommand({ PAGER: 'more', CASTELLAN_DIFF_PAGER: 'delta' }), 'delta');
  assert.equal(pagerCommand({}), 'less -R');
});

test('the border text: branch, files, +/-, commits ahead; a deleted worktree says so', () => {
  assert.equal(worktreeText(undefined), '');
  assert.equal(worktreeText({ branch: 'b', files: 2, added: 10, removed: 3, ahead: 1 }), ' b 2f +10 -3 ↑1 ');
  assert.equal(worktreeText({ branch: 'b', files: 0, added: 0, removed: 0, ahead: 0 }), ' b 0f +0 -0 ');
  assert.equal(worktreeText({ branch: 'b', files: 0, added: 0, removed: 0, ahead: 0, missing: true }), ' b (worktree gone) ');
});

test('the keyed review: c asks for a message and commits, m merges and shows a conflict, q quits and restores the terminal', async () => {
  const stdin = new PassThrough() as unknown as NodeJS.ReadStream;
  const stdout = new PassThrough() as unknown as NodeJS.WriteStream;
  let screen = '';
  (stdout as unknown as PassThrough).on('data', (b: Buffer) => (screen += b.toString()));
  const calls: Array<[string, Record<string, unknown>]> = [];
  const call = async <T>(method: string, params: Record<string, unknown>): Promise<T> => {
    calls.push([method, params]);
    if (method === 'worktree.review') return data(2) as T;
    if (method === 'worktree.commit') return { commit: 'feedfacecafe', files: 2 } as T;
    if (method === 'worktree.merge') return { merged: false, conflicts: ['shared.txt'] } as T;
    throw new Error(`unexpected ${method}`);
  };
  const done = runReview({ call, target: { pane_id: 'w1:p2' }, env: {}, stdin, stdout });
  const key = (s: string) => (stdin as unknown as PassThrough).write(s);
  await waitFor(() => screen.includes('2 files changed'), { message: 'first draw' });
  key('c');
  await waitFor(() => screen.includes('commit message'), { message: 'asks for a message' });
  key('agent work\r');
  await waitFor(() => screen.includes('committed 2 file(s) as feedfaceca'), { message: 'commit outcome' });
  key('m');
  await waitFor(() => screen.includes('not merged: conflicts in shared.txt'), { message: 'conflict reported' });
  key('q');
  assert.equal(await done, 0);
  assert.deepEqual(calls.filter(([m]) => m !== 'worktree.review'), [['worktree.commit', { pane_id: 'w1:p2', message: 'agent work' }], ['worktree.merge', { pane_id: 'w1:p2' }]]);
  assert.ok(screen.endsWith('\x1b[?25h\x1b[?1049l'), 'cursor and main screen back');
});

test('the watch refreshes once for a burst of changes, never in a busy loop', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cwatch-'));
  let runs = 0;
  const w = new SummaryWatch({ paths: [dir], refresh: async () => void runs++, debounceMs: 100, minIntervalMs: 300, log: () => {} });
  try {
    await waitFor(() => runs === 1, { message: 'the first summary' });
    for (let i = 0; i < 200; i++) writeFileSync(join(dir, `f${i % 5}`), String(i));
    await waitFor(() => runs >= 2, { timeoutMs: 5000, message: 'a refresh after the burst' });
    const after = runs;
    // Proving that nothing more happens needs a window of time: no condition can be waited on for an absence.
    await new Promise<void>((r) => setTimeout(r, 800));
    assert.ok(after <= 3 && runs === after, `200 writes, ${runs} refreshes`);
  } finally {
    w.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
