// The ACP mode guard's probe: in an agent worktree whose only rule is a command rule ("git push" = "deny"), shell counts
// as gated, so an editor cannot switch the agent into a mode that would push unasked.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { realpathSync } from 'node:fs';
import { strictestGate } from '../../src/acp/gates.js';
import { createWorktree } from '../../src/worktree/create.js';
import { makeWorld, type World } from '../hooks/helpers.js';
import { GIT_ENV, makeRepo } from '../worktree/repo.js';

let w: World;
let repo: string;
let wt: string;
before(async () => {
  w = makeWorld();
  repo = realpathSync(makeRepo(join(w.root, 'repo')));
  wt = (await createWorktree({ cwd: repo, root: join(w.root, 'wts'), agent: 'gemini', env: { ...w.env, ...GIT_ENV } })).path;
  w.write(join(w.home, '.castellan', 'config.toml'), '[governance.worktree]\n"git push" = "deny"\n');
});
after(() => w.cleanup());

test('a command rule gates shell inside the agent worktree, and nothing outside it', async () => {
  const inside = await strictestGate(['shell'], wt, w.opts({ audit: false }));
  assert.equal(inside?.kind, 'deny');
  assert.match(inside?.reason ?? '', /"git push" = "deny"/);
  assert.equal(await strictestGate(['shell'], repo, w.opts({ audit: false })), undefined);
});
