// Two agents in two worktrees of one repository editing the same file: review, merge one, a conflict report for the other, close keeps work, prune.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import type { ApiClient } from '../../src/api/client.js';
import { agentWorktreeAt } from '../../src/worktree/index.js';
import { startInProcess, waitFor, type InProcessServer } from '../api/in-process.js';
import { code, GIT_ENV, gitIn, makeRepo, writeDefinition, writeEditorAgent } from './repo.js';

type Started = { agent_id: string; pane_id: string; worktree: { id: string; branch: string; path: string; base: string } };
type Review = { branch: string; files: Array<{ path: string; status: string; added: number; removed: number }>; ahead: number; uncommitted: number; diff?: string };

describe('a worktree per agent', () => {
  let srv: InProcessServer;
  let api: ApiClient;
  let repo: string;
  const screen = (pane: string) => srv.session.readPane(pane, { source: 'all' }).join('\n');
  const send = async (pane: string, line: string, n: number) => {
    await api.request('pane.send_text', { pane_id: pane, text: `${line}\r` });
    await waitFor(() => screen(pane).includes(`DONE ${n}`), { timeoutMs: 10_000, message: `${pane} did ${line}` });
  };

  before(async () => {
    srv = await startInProcess({ cols: 200, rows: 50, env: GIT_ENV });
    api = await srv.connect();
    writeDefinition(srv.home, 'editor', writeEditorAgent(srv.home));
    repo = realpathSync(makeRepo(join(srv.home, 'my repo')));
  });
  after(() => srv.stop());

  test('two agents, same file: each in its own worktree, borders show branch and changes, one merges, the other conflicts with the base untouched', async () => {
    const a = await api.request<Started>('agent.start', { name: 'editor', cwd: repo, worktree: true }, { timeoutMs: 60_000 });
    const b = await api.request<Started>('agent.start', { name: 'editor', cwd: repo, worktree: 'feature/b' }, { timeoutMs: 60_000 });
    assert.match(a.worktree.branch, /^castellan\/editor-[0-9a-f]{6}$/);
    assert.equal(b.worktree.branch, 'feature/b');
    assert.equal(a.worktree.base, 'main');
    assert.notEqual(a.worktree.path, b.worktree.path);
    assert.ok(!a.worktree.path.startsWith(repo), 'worktrees live outside the checkout');
    assert.deepEqual(agentWorktreeAt(join(a.worktree.path)), { worktree: a.worktree.path, branch: a.worktree.branch });
    assert.equal(agentWorktreeAt(repo), undefined, 'the main checkout is no agent worktree');

    await waitFor(() => screen(a.pane_id).includes('READY') && screen(b.pane_id).includes('READY'), { timeoutMs: 10_000, message: 'agents ready' });
    await send(a.pane_id, 'WRITE shared.txt from agent A', 1);
    await send(b.pane_id, 'WRITE shared.txt from agent B', 1);
    await send(b.pane_id, 'WRITE b-only.txt new file', 2);
    // The border's data: branch and a live summary from fs.watch + git, no busy poll.
    await waitFor(() => srv.session.state().panes[a.pane_id].worktree?.files === 1, { timeoutMs: 10_000, message: 'A summary' });
    await waitFor(() => srv.session.state().panes[b.pane_id].worktree?.files === 2, { timeoutMs: 10_000, message: 'B summary' });
    assert.deepEqual(srv.session.state().panes[a.pane_id].worktree, { branch: a.worktree.branch, files: 1, added: 1, removed: 3, ahead: 0 });
    assert.equal(readFileSync(join(repo, 'shared.txt'), 'utf8'), 'line 1\nline 2\nline 3\n', 'the base checkout is untouched');

    const ra = await api.request<Review>('worktree.review', { pane_id: a.pane_id, diff: true });
    assert.deepEqual(ra.files, [{ path: 'shared.txt', status: 'M', added: 1, removed: 3 }]);
    assert.equal(ra.uncommitted, 1);
    assert.match(ra.diff ?? '', /\+from agent A/);
    const rb = await api.request<Review>('worktree.review', { pane_id: b.pane_id });
    assert.deepEqual(rb.files.map((f) => `${f.status} ${f.path} +${f.added}`).sort(), ['? b-only.txt +1', 'M shared.txt +1']);

    assert.match(await code(api.request('worktree.merge', { pane_id: a.pane_id })), /^worktree_refused: .*uncommitted/);
    const ca = await api.request<{ commit: string; files: number }>('worktree.commit', { pane_id: a.pane_id, message: 'agent A' });
    assert.equal(ca.files, 1);
    await api.request('worktree.commit', { pane_id: b.pane_id, message: 'agent B' });
    const ma = await api.request<{ merged: boolean; mode: string }>('worktree.merge', { pane_id: a.pane_id });
    assert.deepEqual({ merged: ma.merged, mode: ma.mode }, { merged: true, mode: 'fast-forward' });
    assert.equal(readFileSync(join(repo, 'shared.txt'), 'utf8'), 'from agent A\n', 'main has A\'s work, checked out');

    const head = gitIn(repo, 'rev-parse', 'HEAD');
    const mb = await api.request<{ merged: boolean; conflicts: string[] }>('worktree.merge', { pane_id: b.pane_id });
    assert.deepEqual(mb, { merged: false, conflicts: ['shared.txt'] });
    assert.equal(gitIn(repo, 'rev-parse', 'HEAD'), head, 'base did not move');
    assert.equal(gitIn(repo, 'status', '--porcelain'), '', 'base is clean');
    assert.ok(!existsSync(join(repo, '.git', 'MERGE_HEAD')), 'no merge left half-done');
    const rr = await api.request<{ rebased: boolean; conflicts: string[] }>('worktree.rebase', { pane_id: b.pane_id });
    assert.deepEqual(rr, { rebased: false, conflicts: ['shared.txt'] });
    assert.equal(gitIn(b.worktree.path, 'status', '--porcelain'), '', 'the branch is as it was');

    // Closing the panes: A is merged and clean, B has unmerged work (and, after this, uncommitted work too).
    await send(b.pane_id, 'WRITE wip.txt unsaved', 3);
    await api.request('pane.close', { pane_id: a.pane_id });
    await api.request('pane.close', { pane_id: b.pane_id });
    const list = await api.request<{ worktrees: Array<{ branch: string; pane_id: string | null; clean: boolean; merged: boolean }> }>('worktree.list', {});
    assert.deepEqual(list.worktrees.map((w) => [w.branch, w.pane_id, w.clean, w.merged]), [[a.worktree.branch, null, true, true], ['feature/b', null, false, false]]);
    assert.ok(existsSync(join(b.worktree.path, 'wip.txt')), 'closing the pane kept the uncommitted work');

    const pr = await api.request<{ removed: Array<{ branch: string }>; kept: Array<{ branch: string; why: string }> }>('worktree.prune', {});
    assert.deepEqual(pr.removed.map((w) => w.branch), [a.worktree.branch]);
    assert.deepEqual(pr.kept.map((w) => w.branch), ['feature/b']);
    assert.match(pr.kept[0].why, /^1 untracked file \(wip\.txt\); 1 commit not in main \([0-9a-f]+ agent B\)$/, 'why names each kind of work');
    assert.ok(!existsSync(a.worktree.path));
    assert.equal(gitIn(repo, 'branch', '--list', a.worktree.branch), '', 'its branch went with it');
    assert.ok(existsSync(b.worktree.path));

    const d = await api.request<{ branch_deleted: boolean }>('worktree.discard', { id: 'feature/b' });
    assert.equal(d.branch_deleted, true);
    assert.ok(!existsSync(b.worktree.path));
    assert.equal(gitIn(repo, 'worktree', 'list', '--porcelain').split('\n').filter((l) => l.startsWith('worktree ')).length, 1);
  });

  test('a merge commit when the base moved; a worktree deleted by hand is reported, then forgotten', async () => {
    const a = await api.request<Started>('agent.start', { name: 'editor', cwd: repo, worktree: true }, { timeoutMs: 60_000 });
    await waitFor(() => screen(a.pane_id).includes('READY'), { timeoutMs: 10_000 });
    await send(a.pane_id, 'WRITE a2.txt hello', 1);
    await send(a.pane_id, 'COMMIT work', 2);
    gitIn(repo, 'commit', '-q', '--allow-empty', '-m', 'base moved');
    const m = await api.request<{ merged: boolean; mode: string }>('worktree.merge', { pane_id: a.pane_id });
    assert.equal(m.mode, 'merge');
    assert.ok(existsSync(join(repo, 'a2.txt')));
    assert.equal(gitIn(repo, 'status', '--porcelain'), '');

    await api.request('pane.close', { pane_id: a.pane_id });
    gitIn(repo, 'worktree', 'remove', '--force', a.worktree.path);
    assert.match(await code(api.request('worktree.review', { id: a.worktree.id })), /^worktree_refused: .*deleted/);
    const pr = await api.request<{ removed: Array<{ branch: string }> }>('worktree.prune', {});
    assert.deepEqual(pr.removed.map((w) => w.branch), [a.worktree.branch], 'merged and gone: pruned');
  });

  test('refusals leave the repository as it was: outside a repo, existing branch, submodules, LFS (a dirty base is no refusal: dirty-base.test.ts)', async () => {
    const before = () => [gitIn(repo, 'branch', '--list'), gitIn(repo, 'worktree', 'list'), gitIn(repo, 'status', '--porcelain')].join('|');
    const panes = () => Object.keys(srv.session.state().panes).length;
    const n = panes();
    const s0 = before();
    assert.match(await code(api.request('agent.start', { name: 'editor', cwd: srv.home, worktree: true })), /^not_a_repository: .*not inside a git repository/);
    assert.match(await code(api.request('agent.start', { name: 'editor', cwd: repo, worktree: 'main' })), /^worktree_refused: a branch named main already exists/);
    assert.match(await code(api.request('agent.start', { name: 'editor', cwd: repo, worktree: '-x' })), /^invalid_params/);
    assert.equal(before(), s0);
    gitIn(repo, 'config', 'core.autocrlf', 'false');
    const { writeFileSync, rmSync } = await import('node:fs');
    writeFileSync(join(repo, '.gitmodules'), '[submodule "x"]\n');
    assert.match(await code(api.request('agent.start', { name: 'editor', cwd: repo, worktree: true })), /^worktree_refused: .*submodules/);
    rmSync(join(repo, '.gitmodules'));
    writeFileSync(join(repo, '.gitattributes'), '*.bin filter=lfs diff=lfs merge=lfs -text\n');
    assert.match(await code(api.request('agent.start', { name: 'editor', cwd: repo, worktree: true })), /^worktree_refused: .*Git LFS/);
    rmSync(join(repo, '.gitattributes'));
    assert.equal(before(), s0, 'no branch, worktree or change left behind');
    assert.equal(panes(), n, 'no pane opened');
  });

  test('a delegated child (--parent) gets its own worktree, branched from its parent\'s', async () => {
    const parent = await api.request<Started>('agent.start', { name: 'editor', cwd: repo, worktree: 'parent-wt' }, { timeoutMs: 60_000 });
    await api.request('episode.start', { pane_id: parent.pane_id, goal_id: 'g-wt', rlm: true });
    await waitFor(() => screen(parent.pane_id).includes('READY'), { timeoutMs: 10_000 });
    await send(parent.pane_id, 'WRITE p.txt parent work', 1);
    await send(parent.pane_id, 'COMMIT parent', 2);
    // No cwd: the child starts from its parent pane's directory, so its base is the parent's branch.
    const child = await api.request<Started>('agent.start', { name: 'editor', parent: parent.pane_id, worktree: true }, { timeoutMs: 60_000 });
    assert.equal(child.worktree.base, 'parent-wt');
    assert.notEqual(child.worktree.path, parent.worktree.path);
    assert.ok(existsSync(join(child.worktree.path, 'p.txt')), 'the child starts from the parent\'s commit');
    const list = await api.request<{ worktrees: Array<{ branch: string; parent: string | null }> }>('worktree.list', {});
    assert.equal(list.worktrees.find((w) => w.branch === child.worktree.branch)?.parent, parent.pane_id);
    await api.request('worktree.discard', { pane_id: child.pane_id });
    await api.request('worktree.discard', { pane_id: parent.pane_id });
  });

  test('pane.split --worktree, and a repository hook does not run when castellan makes the worktree', async () => {
    const { writeFileSync, chmodSync } = await import('node:fs');
    const hook = join(repo, '.git', 'hooks', 'post-checkout');
    writeFileSync(hook, `#!/bin/sh\ntouch "${join(srv.home, 'HOOK-RAN')}"\n`);
    chmodSync(hook, 0o755);
    const r = await api.request<{ pane_id: string; worktree: { branch: string; path: string } }>('pane.split', { cwd: repo, worktree: 'split-wt', command: ['/bin/sh'] }, { timeoutMs: 60_000 });
    assert.equal(r.worktree.branch, 'split-wt');
    assert.ok(!existsSync(join(srv.home, 'HOOK-RAN')), 'post-checkout did not run');
    await waitFor(() => srv.session.state().panes[r.pane_id].worktree?.branch === 'split-wt', { timeoutMs: 10_000 });
    await api.request('worktree.discard', { pane_id: r.pane_id });
    assert.ok(!srv.session.state().panes[r.pane_id], 'discard closed the pane working in it');
  });
});
