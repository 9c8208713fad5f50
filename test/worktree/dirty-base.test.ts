// A dirty main checkout: a new worktree starts anyway (and says what it lacks); a merge is refused only when it would touch the dirt.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ApiClient } from '../../src/api/client.js';
import { startInProcess, type InProcessServer } from '../api/in-process.js';
import { code, GIT_ENV, gitIn, makeRepo } from './repo.js';

type Split = { pane_id: string; worktree: { id: string; path: string; branch: string; base_uncommitted?: string[]; note?: string } };

describe('worktrees and a dirty base', () => {
  let srv: InProcessServer;
  let api: ApiClient;
  let repo: string;
  const split = async (branch: string) => {
    const r = await api.request<Split>('pane.split', { cwd: repo, worktree: branch, command: ['/bin/sh'] }, { timeoutMs: 60_000 });
    await api.request('pane.close', { pane_id: r.pane_id });
    return r.worktree;
  };
  const commitIn = (p: string, file: string, text: string) => {
    writeFileSync(join(p, file), text);
    gitIn(p, 'add', file);
    gitIn(p, 'commit', '-q', '-m', `edit ${file}`);
  };

  before(async () => {
    srv = await startInProcess({ cols: 160, rows: 40, env: GIT_ENV });
    api = await srv.connect();
    repo = realpathSync(makeRepo(join(srv.home, 'repo')));
  });
  after(async () => (await srv.session.agents?.worktrees?.flush(), srv.stop()));

  test('a tracked change in the base does not stop a new worktree: it starts from HEAD, the base keeps its edit, and the reply says so', async () => {
    writeFileSync(join(repo, 'README'), 'base edit, not committed\n');
    const w = await split('from-dirty');
    assert.deepEqual(w.base_uncommitted, ['README']);
    assert.match(w.note ?? '', /uncommitted changes that are not in this worktree: README/);
    assert.equal(readFileSync(join(w.path, 'README'), 'utf8'), 'readme\n', 'the worktree has HEAD');
    assert.equal(readFileSync(join(repo, 'README'), 'utf8'), 'base edit, not committed\n', 'the base is untouched');
    gitIn(repo, 'checkout', '-q', 'README');
    const c = await split('from-clean');
    assert.equal(c.note, undefined, 'no note when the base is clean');
  });

  test('a merge with an unrelated dirty file in the base goes ahead and leaves the edit as it was', async () => {
    const w = await split('unrelated');
    commitIn(w.path, 'new.txt', 'from the agent\n');
    writeFileSync(join(repo, 'README'), 'my own edit\n');
    const m = await api.request<{ merged: boolean; mode: string }>('worktree.merge', { id: 'unrelated' });
    assert.deepEqual([m.merged, m.mode], [true, 'fast-forward']);
    assert.ok(existsSync(join(repo, 'new.txt')));
    assert.equal(readFileSync(join(repo, 'README'), 'utf8'), 'my own edit\n');
    assert.equal(gitIn(repo, 'status', '--porcelain'), ' M README\n');
    gitIn(repo, 'checkout', '-q', 'README');
  });

  test('a merge commit with an unrelated unstaged edit goes ahead; a staged one is refused by name', async () => {
    const w = await split('merge-commit');
    commitIn(w.path, 'mc.txt', 'agent\n');
    gitIn(repo, 'commit', '-q', '--allow-empty', '-m', 'base moved');
    writeFileSync(join(repo, 'README'), 'staged edit\n');
    gitIn(repo, 'add', 'README');
    const head = gitIn(repo, 'rev-parse', 'HEAD');
    assert.match(await code(api.request('worktree.merge', { id: 'merge-commit' })), /^worktree_refused: main is checked out in .* with staged changes \(README\): a merge commit would take them in/);
    assert.equal(gitIn(repo, 'rev-parse', 'HEAD'), head);
    gitIn(repo, 'reset', '-q', 'README');
    const m = await api.request<{ merged: boolean; mode: string }>('worktree.merge', { id: 'merge-commit' });
    assert.deepEqual([m.merged, m.mode], [true, 'merge']);
    assert.equal(readFileSync(join(repo, 'README'), 'utf8'), 'staged edit\n', 'the unstaged edit is still there');
    assert.equal(gitIn(repo, 'diff', '--name-only', 'HEAD^1', 'HEAD').trim(), 'mc.txt', 'the merge took in nothing of it');
    gitIn(repo, 'checkout', '-q', 'README');
  });

  test('a merge that would touch a dirty or untracked file is refused, naming the files, and nothing changes', async () => {
    const w = await split('touching');
    commitIn(w.path, 'shared.txt', 'agent edit\n');
    commitIn(w.path, 'created.txt', 'agent file\n');
    writeFileSync(join(repo, 'shared.txt'), 'my uncommitted edit\n');
    writeFileSync(join(repo, 'created.txt'), 'my untracked file\n');
    const head = gitIn(repo, 'rev-parse', 'HEAD');
    const c = await code(api.request('worktree.merge', { id: 'touching' }));
    assert.match(c, /^worktree_refused: main is checked out in .* with uncommitted changes to files this merge changes: (shared\.txt, created\.txt|created\.txt, shared\.txt)\. Commit or stash them, then merge$/);
    assert.equal(gitIn(repo, 'rev-parse', 'HEAD'), head);
    assert.equal(readFileSync(join(repo, 'shared.txt'), 'utf8'), 'my uncommitted edit\n');
    assert.equal(readFileSync(join(repo, 'created.txt'), 'utf8'), 'my untracked file\n');
    assert.ok(!existsSync(join(repo, '.git', 'MERGE_HEAD')));
  });
});
