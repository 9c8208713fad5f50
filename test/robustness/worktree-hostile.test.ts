// Hostile inputs to the worktree methods: bad branch names, panes that are no worktree, a merge during a merge, odd repo paths, a corrupt record file.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ApiClient } from '../../src/api/client.js';
import { readStore } from '../../src/worktree/store.js';
import { startInProcess, waitFor, type InProcessServer } from '../api/in-process.js';
import { code, GIT_ENV, gitIn, makeRepo, writeDefinition, writeEditorAgent } from '../worktree/repo.js';

describe('worktree methods under hostile input', () => {
  let srv: InProcessServer;
  let api: ApiClient;
  let repo: string;
  const branches = () => gitIn(repo, 'for-each-ref', '--format=%(refname)', 'refs/heads');
  before(async () => {
    srv = await startInProcess({ cols: 160, rows: 40, env: GIT_ENV });
    api = await srv.connect();
    writeDefinition(srv.home, 'editor', writeEditorAgent(srv.home));
    repo = realpathSync(makeRepo(join(srv.home, 'a repo with spaces\nand a newline')));
  });
  after(() => srv.stop());

  test('branch names git or castellan refuse: nothing created, a clear code', async () => {
    const before = branches();
    const bad = ['-x', '../..', 'a..b', 'x'.repeat(10_000), 'a\0b', 'with space', 'refs/../x', 'x.lock', '.hidden', 'a//b', 'ends/', '@{-1}', 'a~1', 'a^b', 'a:b', 'a\\b', '\u001b[31mred'];
    for (const name of bad) {
      const c = await code(api.request('agent.start', { name: 'editor', cwd: repo, worktree: name }, { timeoutMs: 30_000 }));
      assert.match(c, /^invalid_params/, `${JSON.stringify(name.slice(0, 20))}: ${c}`);
      assert.ok(!c.includes('\u001b'), 'no control characters echoed back');
    }
    for (const name of ['-x', '../..', 'a..b']) assert.match(await code(api.request('pane.split', { cwd: repo, worktree: name })), /^invalid_params/);
    assert.equal(branches(), before, 'no branch was made');
    assert.equal(gitIn(repo, 'worktree', 'list', '--porcelain').split('\n').filter((l) => l.startsWith('worktree ')).length, 1, 'no worktree was made');
  });

  test('a repository on a path with spaces and a newline works; targets that are no worktree get not_a_worktree', async () => {
    const a = await api.request<{ pane_id: string; worktree: { id: string; path: string } }>('agent.start', { name: 'editor', cwd: repo, worktree: true }, { timeoutMs: 60_000 });
    await waitFor(() => srv.session.state().panes[a.pane_id]?.worktree !== undefined, { timeoutMs: 10_000, message: 'summary' });
    assert.match(await code(api.request('worktree.review', { pane_id: 'w1:p1' })), /^not_a_worktree: pane w1:p1 does not work in a castellan worktree/);
    assert.match(await code(api.request('worktree.merge', { pane_id: 'w99:p99' })), /^pane_not_found/);
    assert.match(await code(api.request('worktree.merge', { id: '../../etc' })), /^not_a_worktree/);
    assert.match(await code(api.request('worktree.merge', {})), /^invalid_params: give exactly one of pane_id and id/);
    assert.match(await code(api.request('worktree.merge', { pane_id: a.pane_id, id: a.worktree.id })), /^invalid_params/);
    assert.match(await code(api.request('worktree.review', { id: 'x'.repeat(10_000) })), /^invalid_params/);
    assert.match(await code(api.request('worktree.commit', { pane_id: a.pane_id, message: '' })), /^invalid_params/);
    assert.match(await code(api.request('worktree.commit', { pane_id: a.pane_id, message: 'nothing here' })), /^worktree_refused: nothing to commit/);
    const cl = await srv.connect();
    await cl.request('client.attach', { cols: 100, rows: 30 });
    assert.match(await code(cl.request('client.action', { action: { type: 'worktree.review', pane: 'w1:p1' } })), /^not_a_worktree/, 'prefix D on a plain shell says why');
    cl.close();
  });

  test('a merge while another merge runs on the same repository is told busy; the first completes', async () => {
    const a = await api.request<{ pane_id: string; worktree: { path: string } }>('agent.start', { name: 'editor', cwd: repo, worktree: true }, { timeoutMs: 60_000 });
    writeFileSync(join(a.worktree.path, 'f.txt'), 'x\n');
    await api.request('worktree.commit', { pane_id: a.pane_id, message: 'f' });
    const results = await Promise.all([code(api.request('worktree.merge', { pane_id: a.pane_id })), code(api.request('worktree.merge', { pane_id: a.pane_id })), code(api.request('worktree.rebase', { pane_id: a.pane_id }))]);
    assert.equal(results.filter((r) => r === 'ok').length, 1, results.join('\n'));
    assert.ok(results.filter((r) => r !== 'ok').every((r) => /^busy: another operation \(merge\) is running/.test(r)), results.join('\n'));
    assert.equal(gitIn(repo, 'status', '--porcelain'), '');
  });

  test('a corrupt, oversized or foreign record file is refused whole', () => {
    const dir = join(srv.home, 'stores');
    mkdirSync(dir, { recursive: true });
    const f = (name: string, text: string) => (writeFileSync(join(dir, name), text), join(dir, name));
    assert.match(readStore(f('bad.json', '{"version":1,"worktrees":[{"id":"zz"')).problem ?? '', /JSON|Unexpected|Expected/);
    assert.match(readStore(f('big.json', ' '.repeat(3 * 1024 * 1024))).problem ?? '', /limit/);
    assert.match(readStore(f('foreign.json', JSON.stringify({ version: 1, worktrees: [{ id: 'abcd', path: '/', branch: 'x', repo: '/', commonDir: '/', base: '', baseCommit: 'nothex', createdAt: 1 }] }))).problem ?? '', /not a worktree list/);
    assert.deepEqual(readStore(join(dir, 'missing.json')), { records: [] });
    assert.ok(readdirSync(dir).length >= 3);
  });
});
