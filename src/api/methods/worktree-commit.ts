// worktree.commit: commits everything in an agent's worktree on its branch (the review's `c`).
import { z } from 'zod';
import { defineMethod } from '../define-method.js';
import { targetOf, targetShape, worktreesOf } from './worktree-list.js';

export default defineMethod({
  name: 'worktree.commit',
  description: 'Stages everything in the worktree (`git add -A`) and commits it on its branch with `message`. Castellan\'s git calls run no repository hooks. Code worktree_refused (data.reason nothing_to_do) when there is nothing to commit.',
  params: z.object({ ...targetShape, message: z.string().min(1).max(10_000) }).strict(),
  result: z.object({ commit: z.string(), files: z.number() }),
  handler: ({ session }, p) => worktreesOf(session).commit(targetOf(p), p.message),
});
