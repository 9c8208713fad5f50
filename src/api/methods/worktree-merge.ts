// worktree.merge: merges an agent's branch into its base (fast-forward when it can); a conflict is reported with the base untouched.
import { z } from 'zod';
import { defineMethod } from '../define-method.js';
import { targetOf, targetShape, worktreesOf } from './worktree-list.js';

export default defineMethod({
  name: 'worktree.merge',
  description:
    'Merges the worktree\'s branch into its base branch: a fast-forward when the base has not moved, else a merge commit. Conflicts are found first with `git merge-tree` (no working tree or index touched): then `merged: false` and the conflicting files, and the base is exactly as it was (no MERGE_HEAD). Refused (code worktree_refused, data.reason) with uncommitted changes in the worktree (commit first), with nothing to merge, or (reason dirty_base, the files named) where the base is checked out with uncommitted or untracked files the merge would change or create, or with staged changes when the merge needs a merge commit; uncommitted changes to other files do not stop it and stay as they are. Code busy while another castellan merge/rebase/commit runs on the repository.',
  params: z.object(targetShape).strict(),
  result: z.union([
    z.object({ merged: z.literal(true), mode: z.enum(['fast-forward', 'merge']), commit: z.string() }),
    z.object({ merged: z.literal(false), conflicts: z.array(z.string()) }),
  ]),
  handler: ({ session }, p) => worktreesOf(session).merge(targetOf(p)),
});
