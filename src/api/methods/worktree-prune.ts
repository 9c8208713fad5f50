// worktree.prune: removes the agents' worktrees that are done with: no pane in them, and no work only they hold.
import { z } from 'zod';
import { defineMethod } from '../define-method.js';
import { worktreeRow, worktreesOf } from './worktree-list.js';

export default defineMethod({
  name: 'worktree.prune',
  description:
    'Removes every worktree no pane works in that holds no work (and deletes its branch): no uncommitted change, untracked or ignored file, no commit only it holds (its HEAD, detached or not, its branch, a branch made in it, either reflog; a commit whose patch the base has does not count), no stash made in it. Ignored files (a build directory, but also a secret.env) are deleted only with `include_ignored: true`. The others are kept and listed with why (a pane works in it, or what it holds, with a few names). Checked again under the repository lock just before removal; git itself refuses if a file appeared since.',
  params: z.object({ include_ignored: z.boolean().default(false) }).strict().default({ include_ignored: false }),
  result: z.object({ removed: z.array(worktreeRow), kept: z.array(worktreeRow.extend({ why: z.string() })) }),
  handler: async ({ session }, p) => (await worktreesOf(session).prune({ includeIgnored: p.include_ignored })) as never,
});
