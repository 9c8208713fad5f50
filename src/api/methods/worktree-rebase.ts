// worktree.rebase: replays an agent's commits on its base's new HEAD; a conflict is reported with the branch as it was.
import { z } from 'zod';
import { defineMethod } from '../define-method.js';
import { targetOf, targetShape, worktreesOf } from './worktree-list.js';

export default defineMethod({
  name: 'worktree.rebase',
  description: 'Rebases the worktree\'s branch on the current HEAD of its base. Checked for conflicts first (`rebased: false` and the files, nothing changed); a rebase git still stops is aborted whole. Needs a clean worktree (commit first).',
  params: z.object(targetShape).strict(),
  result: z.union([z.object({ rebased: z.literal(true), commit: z.string() }), z.object({ rebased: z.literal(false), conflicts: z.array(z.string()) })]),
  handler: ({ session }, p) => worktreesOf(session).rebase(targetOf(p)),
});
