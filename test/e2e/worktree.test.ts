// E2E through the real bin in a pty: an agent started with --worktree shows its branch and live changes in its border; prefix D opens the review; a restart keeps the pairing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { tempEnvFor } from '../support/temp-env.js';
import { startAttached } from '../support/term-harness.js';
import { waitFor } from '../support/wait-for.js';
import { GIT_ENV, makeRepo, writeDefinition, writeEditorAgent } from '../worktree/repo.js';

type Row = { id: string; branch: string; pane_id: string | null; summary: { files: number } | null };

test('--worktree: branch and change summary in the border, prefix D reviews, restart keeps the pair', async (t) => {
  const env = tempEnvFor(t, { env: GIT_ENV });
  writeDefinition(env.home, 'editor', writeEditorAgent(env.home));
  const repo = realpathSync(makeRepo(join(env.home, 'proj')));
  const h = await startAttached(env, { cols: 150, rows: 30, timeoutMs: 20_000 });
  const r = await env.cli(['agent', 'start', 'editor', '--worktree'], { cwd: repo, timeoutMs: 60_000 });
  assert.equal(r.code, 0, r.stderr);
  const [, pane, branch] = r.stdout.trim().split(' ');
  assert.match(branch, /^castellan\/editor-[0-9a-f]{6}$/);
  await h.waitForText('READY', { timeoutMs: 15_000 });
  await h.waitForText(`${branch} 0f +0 -0`, { timeoutMs: 15_000, message: 'the border names the branch' });
  h.write('WRITE notes.txt hello from the agent\r');
  await h.waitForText(`${branch} 1f +1 -0`, { timeoutMs: 15_000, message: 'the border shows the new file, live' });
  h.write('WRITE shared.txt rewritten\r');
  await h.waitForText(`${branch} 2f +2 -3`, { timeoutMs: 15_000, message: 'and the edit' });

  // prefix D: the review of the focused agent's worktree, in a popup over its pane; q closes it.
  h.prefix('D');
  await h.waitForText(`review ${branch} → main`, { timeoutMs: 20_000, message: 'the review opened' });
  await h.waitForText('2 files changed, +2 -3; 0 commits ahead; 2 uncommitted', { timeoutMs: 5000 });
  await h.waitForText(/new\s+\+1\s+-0\s+notes\.txt/, { timeoutMs: 5000 });
  h.write('q');
  await h.waitForText(`${branch} 2f +2 -3`, { timeoutMs: 10_000, message: 'back to the agent\'s window once the review quits' });
  await h.kill();

  // A restart (the snapshot brings the pane back in the worktree): the pair holds, the border shows it again.
  assert.equal((await env.cli(['server', 'stop'])).code, 0);
  await waitFor(async () => !(await env.serverRunning()), { timeoutMs: 10_000, message: 'server stopped' });
  const h2 = await startAttached(env, { cols: 150, rows: 30, prompt: false, timeoutMs: 20_000 });
  const rows = await waitFor(async () => {
    const l = await env.call<{ worktrees: Row[] }>('worktree.list', {}, 30_000);
    return l.worktrees[0]?.pane_id ? l.worktrees : undefined;
  }, { timeoutMs: 20_000, message: 'the worktree paired with its restored pane' });
  assert.equal(rows[0].pane_id, pane);
  assert.equal(rows[0].branch, branch);
  await h2.waitForText(`${branch} 2f +2 -3`, { timeoutMs: 20_000, message: 'the border after the restart' });
  await h2.kill();
});
