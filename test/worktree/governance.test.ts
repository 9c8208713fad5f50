// Governance sees agent worktrees: payloads carry worktree and branch, and [governance.worktree] denies `git push` there only.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { realpathSync } from 'node:fs';
import { governPreToolUse } from '../../src/hooks/pipeline.js';
import { runsCommand, worktreePermission } from '../../src/hooks/policy.js';
import { createWorktree } from '../../src/worktree/create.js';
import { agentWorktreeAt } from '../../src/worktree/where.js';
import { hookToml, makeWorld, readJson, type World } from '../hooks/helpers.js';
import { GIT_ENV, makeRepo } from './repo.js';

let w: World;
let repo: string;
let wt: { path: string; branch: string };
const out = () => join(w.root, 'pre.json');

before(async () => {
  w = makeWorld();
  repo = realpathSync(makeRepo(join(w.root, 'repo')));
  const r = await createWorktree({ cwd: repo, root: join(w.root, 'wts'), agent: 'claude', env: { ...w.env, ...GIT_ENV } });
  wt = { path: r.path, branch: r.branch };
  const capture = w.script('capture.sh', `cat > ${out()}`);
  w.write(join(w.home, '.castellan', 'config.toml'), `${hookToml({ event: 'PreToolUse', command: capture, id: 'cap' })}\n[governance.worktree]\n"git push" = "deny"\n`);
});
after(() => w.cleanup());

describe('worktrees in governance', () => {
  test('the marker in git\'s admin dir says where an agent worktree is, from any subdirectory', () => {
    assert.deepEqual(agentWorktreeAt(wt.path), { worktree: wt.path, branch: wt.branch });
    assert.equal(agentWorktreeAt(repo), undefined);
    assert.equal(agentWorktreeAt('/'), undefined);
  });

  test('git push is denied in the agent worktree, allowed in the main checkout; other commands pass', async () => {
    const inWt = await governPreToolUse({ tool: 'shell', argv: ['git', 'push', 'origin', 'main'], cwd: wt.path }, w.opts());
    assert.equal(inWt.decision, 'deny');
    assert.match(inWt.reason ?? '', /\[governance\.worktree\] "git push" = "deny", in the agent worktree of castellan\/claude-/);
    const viaShell = await governPreToolUse({ tool: 'shell', argv: ['/bin/sh', '-c', 'cd sub && /usr/bin/git -C . push --force'], cwd: wt.path }, w.opts());
    assert.equal(viaShell.decision, 'deny', 'a shell line that pushes is caught too');
    assert.equal((await governPreToolUse({ tool: 'shell', argv: ['git', 'status'], cwd: wt.path }, w.opts())).decision, 'allow');
    assert.equal((await governPreToolUse({ tool: 'shell', argv: ['git', 'push'], cwd: repo }, w.opts())).decision, 'allow', 'outside agent worktrees the row does not apply');
  });

  test('hook payloads carry worktree and branch (null outside one)', async () => {
    await governPreToolUse({ tool: 'shell', argv: ['ls'], cwd: wt.path }, w.opts());
    const p = readJson(out());
    assert.equal(p.worktree, wt.path);
    assert.equal(p.branch, wt.branch);
    await governPreToolUse({ tool: 'shell', argv: ['ls'], cwd: repo }, w.opts());
    const q = readJson(out());
    assert.equal(q.worktree, null);
    assert.equal(q.branch, null);
  });

  test('matching: command words, tool names, the strictest row wins; hostile lines stay linear', () => {
    assert.equal(runsCommand(['git', 'log', '--oneline'], 'git push'), false);
    assert.equal(runsCommand(['bash', '-c', 'echo hi; git   push'], 'git push'), true);
    assert.equal(runsCommand(['gitx', 'push'], 'git push'), false);
    assert.deepEqual(worktreePermission('shell', ['rm', '-rf', 'x'], { shell: 'prompt', 'rm -rf': 'deny' }), { permission: 'deny', rule: 'rm -rf' });
    assert.equal(worktreePermission('exec', ['ls'], { shell: 'deny' }), undefined);
    // CPU time, not wall time: a loaded machine stretches the wall clock, never a linear match into a quadratic one
    const c0 = process.cpuUsage();
    runsCommand(['sh', '-c', ';'.repeat(100_000) + 'git '.repeat(50_000)], 'git push now');
    const cpu = process.cpuUsage(c0);
    assert.ok((cpu.user + cpu.system) / 1000 < 500, 'a 300 KB line is matched in linear time');
  });
});
