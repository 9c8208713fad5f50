// pane.list / pane.get and `herd list --json` carry the pane's worktree and branch, as hook payloads do.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import type { ApiClient } from '../../src/api/client.js';
import herdList from '../../src/cli/commands/herd-list.js';
import type { CliContext } from '../../src/cli/define-command.js';
import { resolvePaths } from '../../src/platform/paths.js';
import { startInProcess, type InProcessServer } from '../api/in-process.js';
import { GIT_ENV, makeRepo } from './repo.js';

type Pane = { pane_id: string; worktree: string | null; branch: string | null };

describe('panes report their worktree', () => {
  let srv: InProcessServer;
  let api: ApiClient;
  let repo: string;
  before(async () => {
    srv = await startInProcess({ cols: 160, rows: 40, env: GIT_ENV });
    api = await srv.connect();
    repo = realpathSync(makeRepo(join(srv.home, 'repo')));
  });
  after(async () => (await srv.session.agents?.worktrees?.flush(), srv.stop()));

  test('the paired pane and a shell started inside the worktree name it; other panes say null', async () => {
    const a = await api.request<{ pane_id: string; worktree: { path: string; branch: string } }>('pane.split', { cwd: repo, worktree: 'listed', command: ['/bin/sh'] }, { timeoutMs: 60_000 });
    const inside = await api.request<{ pane_id: string }>('pane.split', { cwd: join(a.worktree.path), command: ['/bin/sh'] });
    const plain = await api.request<{ pane_id: string }>('pane.split', { cwd: repo, command: ['/bin/sh'] });
    const { panes } = await api.request<{ panes: Pane[] }>('pane.list', {});
    const by = (id: string) => panes.find((p) => p.pane_id === id)!;
    assert.deepEqual([by(a.pane_id).worktree, by(a.pane_id).branch], [a.worktree.path, 'listed']);
    assert.deepEqual([by(inside.pane_id).worktree, by(inside.pane_id).branch], [a.worktree.path, 'listed'], 'found by its directory, as hook payloads are');
    assert.deepEqual([by(plain.pane_id).worktree, by(plain.pane_id).branch], [null, null]);
    const one = await api.request<Pane>('pane.get', { pane_id: a.pane_id });
    assert.equal(one.branch, 'listed');

    const out: string[] = [];
    const env = { HOME: srv.home, PATH: process.env.PATH ?? '' };
    const ctx: CliContext = { paths: resolvePaths({ env }), env, cwd: repo, out: (s) => out.push(s), err: () => undefined, connect: () => srv.connect(), version: 'test' };
    assert.equal(await herdList.run(ctx, { values: { json: true }, positionals: [], rest: [] }), 0);
    const herd = JSON.parse(out.join('')) as Pane[];
    assert.deepEqual(herd.filter((p) => p.worktree).map((p) => [p.pane_id, p.worktree, p.branch]).sort(), [[a.pane_id, a.worktree.path, 'listed'], [inside.pane_id, a.worktree.path, 'listed']].sort());
    assert.ok(herd.every((p) => 'worktree' in p && 'branch' in p), 'every row has the keys (null outside a worktree)');
    await api.request('worktree.discard', { id: 'listed' });
  });
});
