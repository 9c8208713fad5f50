// worktree.prune: removes the agents' worktrees that are done with: no pane in them, nothing uncommitted, branch merged.
import { z } from 'zod';
import { defineMethod } from '../define-method.js';
import { worktreeRow, worktreesOf } from './worktree-list.js';

export default defineMethod({
  name: 'worktree.prune',
  description: 'Removes every worktree no pane works in whose changes are all committed and merged into its base (and deletes its branch); the others are kept and listed with why (a pane works in it, uncommitted changes, unmerged commits).',
  params: z.object({}).strict().default({}),
  result: z.object({ removed: z.array(worktreeRow), kept: z.array(worktreeRow.extend({ why: z.string() })) }),
  handler: async ({ session }) => (await worktreesOf(session).prune()) as never,
});
