// Every way an agent can leave work in its worktree: list names it, prune keeps it (and says why), discard asks first.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { ApiClient } from '../../src/api/client.js';
import review from '../../src/cli/commands/review.js';
import { runDiscard } from '../../src/cli/commands/worktree-discard.js';
import type { CliContext } from '../../src/cli/define-command.js';
import { resolvePaths } from '../../src/platform/paths.js';
import { startInProcess, waitFor, type InProcessServer } from '../api/in-process.js';
import { GIT_ENV, gitIn, makeRepo } from './repo.js';

type Row = { id: string; branch: string; path: string; clean: boolean | null; merged: boolean | null; work: string[] | null };
type Pruned = { removed: Array<{ branch: string }>; kept: Array<{ branch: string; why: string }> };

/** Each way to leave work, what `why` must say about it, and a commit it must not lose (if any). */
const CASES: Array<{ branch: string; leave: (p: string) => void; why: RegExp }> = [
  { branch: 'wt-detached', leave: (p) => (gitIn(p, 'checkout', '-q', '--detach'), commit(p, 'd.txt', 'detached work')), why: /^1 commit not in main \([0-9a-f]+ detached work\)$/ },
  { branch: 'wt-reflog', leave: (p) => (commit(p, 'r.txt', 'reset away'), gitIn(p, 'reset', '-q', '--hard', 'HEAD~1')), why: /^1 commit not in main \([0-9a-f]+ reset away\)$/ },
  { branch: 'wt-other', leave: (p) => (gitIn(p, 'checkout', '-q', '-b', 'made-in-wt'), commit(p, 'o.txt', 'on a branch made here'), gitIn(p, 'checkout', '-q', 'wt-other')), why: /^1 commit not in main \([0-9a-f]+ on a branch made here\)$/ },
  { branch: 'wt-branch', leave: (p) => commit(p, 'b.txt', 'on its branch'), why: /^1 commit not in main \([0-9a-f]+ on its branch\)$/ },
  { branch: 'wt-stash', leave: (p) => (writeFileSync(join(p, 'shared.txt'), 'stashed\n'), gitIn(p, 'stash', '-q')), why: /^1 stash made in it \(stash@\{0\}: WIP on wt-stash: / },
  { branch: 'wt-untracked', leave: (p) => writeFileSync(join(p, 'notes.txt'), 'n\n'), why: /^1 untracked file \(notes\.txt\)$/ },
  { branch: 'wt-ignored', leave: (p) => writeFileSync(join(p, 'secret.env'), 'TOKEN=x\n'), why: /^1 ignored file \(secret\.env\)/ },
  { branch: 'wt-uncommitted', leave: (p) => writeFileSync(join(p, 'README'), 'edited\n'), why: /^1 uncommitted change \(README\)$/ },
  // Hostile: a file name with an escape sequence and a newline comes back printable.
  { branch: 'wt-hostile', leave: (p) => writeFileSync(join(p, 'x\u001b[31m\nname'), 'x\n'), why: /^1 untracked file \(x\?\[31m\?name\)$/ },
];

function commit(p: string, file: string, msg: string): void {
  writeFileSync(join(p, file), `${msg}\n`);
  gitIn(p, 'add', file);
  gitIn(p, 'commit', '-q', '-m', msg);
}

/** A terminal that answers `answer` to the question, and what the question said. */
function terminal(answer: string) {
  const stdin = Object.assign(new PassThrough(), { isTTY: true });
  const stdout = Object.assign(new PassThrough(), { isTTY: true });
  let said = '';
  stdout.on('data', (b: Buffer) => (said += b.toString()));
  stdin.write(answer);
  return { io: { stdin, stdout }, said: () => said };
}

describe('work left in an agent worktree', () => {
  let srv: InProcessServer;
  let api: ApiClient;
  let repo: string;
  const made = new Map<string, { id: string; path: string }>();
  const cli = () => {
    const out: string[] = [];
    const err: string[] = [];
    const env = { HOME: srv.home, PATH: process.env.PATH ?? '' };
    const ctx: CliContext = { paths: resolvePaths({ env }), env, cwd: repo, out: (s) => out.push(s), err: (s) => err.push(s), connect: () => srv.connect(), version: 'test' };
    return { ctx, out, err };
  };
  const list = async () => (await api.request<{ worktrees: Row[] }>('worktree.list', {}, { timeoutMs: 60_000 })).worktrees;

  before(async () => {
    srv = await startInProcess({ cols: 160, rows: 40, env: GIT_ENV });
    api = await srv.connect();
    repo = realpathSync(makeRepo(join(srv.home, 'repo')));
    appendFileSync(join(repo, '.git', 'info', 'exclude'), 'secret.env\n');
    for (const c of CASES) {
      const r = await api.request<{ pane_id: string; worktree: { id: string; path: string } }>('pane.split', { cwd: repo, worktree: c.branch, command: ['/bin/sh'] }, { timeoutMs: 60_000 });
      made.set(c.branch, r.worktree);
      await api.request('pane.close', { pane_id: r.pane_id });
      c.leave(r.worktree.path);
    }
    await waitFor(async () => (await list()).every((w) => w.work !== null), { timeoutMs: 10_000, message: 'worktrees readable' });
  });
  // The records are written after a prune or discard returns: on disk before the state dir is removed.
  after(async () => (await srv.session.agents?.worktrees?.flush(), srv.stop()));

  test('worktree list names the work each holds: none of them is "clean, merged"', async () => {
    const rows = await list();
    for (const c of CASES) {
      const w = rows.find((x) => x.branch === c.branch);
      assert.ok(w?.work, c.branch);
      assert.equal(w.work.length, 1, `${c.branch}: ${w.work.join(' | ')}`);
      assert.match(w.work[0], c.why, c.branch);
      assert.ok(!(w.clean && w.merged), `${c.branch} is not clean and merged`);
    }
  });

  test('prune keeps every one of them, says why per worktree, and deletes nothing', async () => {
    const commits = gitIn(repo, 'rev-list', '--all', '--reflog').split('\n').filter(Boolean).length;
    const r = await api.request<Pruned>('worktree.prune', {}, { timeoutMs: 120_000 });
    assert.deepEqual(r.removed, []);
    for (const c of CASES) {
      const k = r.kept.find((x) => x.branch === c.branch);
      assert.match(k?.why ?? '(removed)', c.why, c.branch);
      assert.ok(existsSync(made.get(c.branch)!.path), `${c.branch} is still on disk`);
    }
    assert.match(r.kept.find((x) => x.branch === 'wt-ignored')!.why, /^1 ignored file \(secret\.env\): --include-ignored deletes them$/);
    assert.ok(existsSync(join(made.get('wt-ignored')!.path, 'secret.env')));
    assert.equal(gitIn(repo, 'stash', 'list').split('\n').filter(Boolean).length, 1);
    assert.equal(gitIn(repo, 'rev-list', '--all', '--reflog').split('\n').filter(Boolean).length, commits, 'no commit became unreachable');
  });

  test('discard with no terminal refuses without --force, whatever the work, and removes nothing', async () => {
    const rows = await list();
    for (const c of CASES) {
      const { ctx, err } = cli();
      const no = { stdin: Object.assign(new PassThrough(), { isTTY: false }), stdout: Object.assign(new PassThrough(), { isTTY: false }) };
      assert.equal(await runDiscard(ctx, { values: { id: c.branch }, positionals: [], rest: [] }, no), 2, c.branch);
      assert.match(err.join('\n'), /not discarded: .*--force says you mean it/);
      assert.ok(err.join('\n').includes(rows.find((w) => w.branch === c.branch)!.work![0].split(':')[0]), `${c.branch}: the refusal names the work`);
      assert.ok(existsSync(made.get(c.branch)!.path), c.branch);
    }
  });

  test('review --discard with no terminal needs --force as well (the test runner has no terminal)', async () => {
    assert.ok(!process.stdin.isTTY);
    const { ctx, err } = cli();
    assert.equal(await review.run(ctx, { values: { id: 'wt-branch', discard: true }, positionals: [], rest: [] }), 2);
    assert.match(err.join('\n'), /not discarded: with no terminal to ask on, --force says you mean it/);
    assert.ok(existsSync(made.get('wt-branch')!.path));
  });

  test('discard on a terminal says what would be lost and discards only on a typed yes', async () => {
    const t = terminal('y\n');
    const a = cli();
    assert.equal(await runDiscard(a.ctx, { values: { id: 'wt-detached' }, positionals: [], rest: [] }, t.io), 1);
    assert.match(t.said(), /discard wt-detached .*It holds: 1 commit not in main \([0-9a-f]+ detached work\)\.\nType yes to discard: /);
    assert.ok(existsSync(made.get('wt-detached')!.path), '"y" is not yes');
    const y = terminal('yes\n');
    const b = cli();
    assert.equal(await runDiscard(b.ctx, { values: { id: 'wt-detached' }, positionals: [], rest: [] }, y.io), 0);
    assert.ok(!existsSync(made.get('wt-detached')!.path));
    assert.match(b.out.join('\n'), /^removed .* and its branch$/);
  });

  test('--include-ignored removes the worktree whose only leftover is ignored files, and no other', async () => {
    const r = await api.request<Pruned>('worktree.prune', { include_ignored: true }, { timeoutMs: 120_000 });
    assert.deepEqual(r.removed.map((w) => w.branch), ['wt-ignored']);
    assert.ok(!existsSync(made.get('wt-ignored')!.path));
    assert.equal(gitIn(repo, 'branch', '--list', 'wt-ignored'), '', 'its branch went with it');
    assert.notEqual(gitIn(repo, 'branch', '--list', 'made-in-wt'), '', 'a branch made in a worktree is never deleted by prune');
  });

  test('hostile: a worktree git cannot read (its .git file points nowhere) is kept, never removed on a failed check', async () => {
    const r = await api.request<{ pane_id: string; worktree: { path: string } }>('pane.split', { cwd: repo, worktree: 'wt-broken', command: ['/bin/sh'] }, { timeoutMs: 60_000 });
    await api.request('pane.close', { pane_id: r.pane_id });
    made.set('wt-broken', r.worktree as { id: string; path: string });
    writeFileSync(join(r.worktree.path, '.git'), 'gitdir: /nonexistent/admin\n');
    const w = (await list()).find((x) => x.branch === 'wt-broken');
    assert.deepEqual([w?.clean, w?.merged, w?.work], [null, null, null], 'unknown, not clean');
    const p = await api.request<Pruned>('worktree.prune', { include_ignored: true }, { timeoutMs: 120_000 });
    assert.ok(!p.removed.some((x) => x.branch === 'wt-broken'));
    assert.match(p.kept.find((x) => x.branch === 'wt-broken')?.why ?? '', /^could not check it, so it stays: git status failed/);
    assert.ok(existsSync(r.worktree.path));
  });

  test('discard --force with no terminal discards (the rest, cleaned up this way)', async () => {
    for (const c of CASES.filter((x) => existsSync(made.get(x.branch)!.path))) {
      const { ctx } = cli();
      const no = { stdin: new PassThrough(), stdout: new PassThrough() };
      assert.equal(await runDiscard(ctx, { values: { id: c.branch, force: true }, positionals: [], rest: [] }, no), 0, c.branch);
      assert.ok(!existsSync(made.get(c.branch)!.path), c.branch);
    }
  });

  test('a branch rebased and then merged is prunable: the originals the rebase left in its reflog have their patch in main', async () => {
    const r = await api.request<{ pane_id: string; worktree: { path: string } }>('pane.split', { cwd: repo, worktree: 'wt-rebased', command: ['/bin/sh'] }, { timeoutMs: 60_000 });
    await api.request('pane.close', { pane_id: r.pane_id });
    commit(r.worktree.path, 'rb.txt', 'to be rebased');
    gitIn(repo, 'commit', '-q', '--allow-empty', '-m', 'main moved');
    assert.equal((await api.request<{ rebased: boolean }>('worktree.rebase', { id: 'wt-rebased' })).rebased, true);
    assert.equal((await api.request<{ merged: boolean; mode: string }>('worktree.merge', { id: 'wt-rebased' })).mode, 'fast-forward');
    const p = await api.request<Pruned>('worktree.prune', {}, { timeoutMs: 120_000 });
    assert.deepEqual(p.removed.map((w) => w.branch), ['wt-rebased'], JSON.stringify(p.kept));
  });
});
