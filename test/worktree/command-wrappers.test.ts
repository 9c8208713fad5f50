// Inside an agent worktree with "git push" = "deny", a push behind a command wrapper is denied by `castellan exec`
// exactly as a plain one is, and git never runs (issue 28: env, nice, timeout, nohup and env -i ran git).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { governPreToolUse } from '../../src/hooks/pipeline.js';
import { createWorktree } from '../../src/worktree/create.js';
import { BIN, runNode } from '../support/temp-env.js';
import { makeWorld, type World } from '../hooks/helpers.js';
import { GIT_ENV, makeRepo } from './repo.js';

let w: World;
let wt: string;
before(async () => {
  w = makeWorld();
  const repo = realpathSync(makeRepo(join(w.root, 'repo')));
  wt = (await createWorktree({ cwd: repo, root: join(w.root, 'wts'), agent: 'codex', env: { ...w.env, ...GIT_ENV } })).path;
  w.write(join(w.home, '.castellan', 'config.toml'), '[governance.worktree]\n"git push" = "deny"\n');
});
after(() => w.cleanup());

/** Each a way to run `git push`; the marker file proves whether the line ran. */
const PUSHES: string[][] = [
  ['git', 'push'],
  ['env', 'git', 'push'],
  ['nice', 'git', 'push'],
  ['timeout', '5', 'git', 'push'],
  ['nohup', 'git', 'push'],
  ['env', '-i', 'PATH=/usr/bin:/bin', 'git', 'push'],
  ['stdbuf', '-oL', 'git', 'push'],
  ['setsid', 'git', 'push'],
  ['sh', '-c', 'git --no-pager push'],
  ['bash', '-c', 'eval "git push"'],
  ['xargs', '-a', '/dev/null', '-r', 'git', 'push'],
];

describe('command wrappers in an agent worktree', () => {
  for (const argv of PUSHES) {
    test(`denied in the pipeline: ${argv.join(' ')}`, async () => {
      const r = await governPreToolUse({ tool: 'shell', argv, cwd: wt }, w.opts({ audit: false }));
      assert.equal(r.decision, 'deny', JSON.stringify(r));
      assert.match(r.reason ?? '', /\[governance\.worktree\] "git push" = "deny"/);
    });
  }

  test('castellan exec denies the wrapped push before anything runs (exit 77), and runs a wrapped git status', async () => {
    const marker = join(w.root, 'ran');
    const denied = await runNode([BIN, 'exec', '--', 'env', 'sh', '-c', `touch ${marker}; git push`], { env: { ...w.env, ...GIT_ENV }, cwd: wt });
    assert.equal(denied.code, 77, denied.stderr);
    assert.match(denied.stderr, /denied: .*"git push" = "deny"/);
    assert.equal(existsSync(marker), false, 'the line ran');
    const ok = await runNode([BIN, 'exec', '--', 'nice', 'git', 'status', '--short'], { env: { ...w.env, ...GIT_ENV }, cwd: wt });
    assert.equal(ok.code, 0, ok.stderr);
  });
});
