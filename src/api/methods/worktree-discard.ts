// worktree.discard: throws an agent's worktree away, uncommitted and unmerged work included: only on an explicit ask.
import { z } from 'zod';
import { defineMethod } from '../define-method.js';
import { targetOf, targetShape, worktreesOf } from './worktree-list.js';

export default defineMethod({
  name: 'worktree.discard',
  description: 'Removes the worktree and deletes its branch (`keep_branch: true` keeps the branch), whatever it holds; a pane still working in it is closed first. Also forgets a worktree deleted by hand.',
  params: z.object({ ...targetShape, keep_branch: z.boolean().default(false) }).strict(),
  result: z.object({ removed: z.string(), branch_deleted: z.boolean() }),
  handler: ({ session }, p) => worktreesOf(session).discard(targetOf(p), { keepBranch: p.keep_branch }),
});
