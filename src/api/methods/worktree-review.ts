// worktree.review: what an agent's worktree changed against its base: files with +/- and, on request, the diff.
import { z } from 'zod';
import { defineMethod } from '../define-method.js';
import { targetOf, targetShape, worktreeRow, worktreesOf } from './worktree-list.js';

export default defineMethod({
  name: 'worktree.review',
  description:
    'The changes of the worktree of `pane_id` (or `id`: its id or branch) against its base, committed or not: `files` (path, status A/M/D/? for untracked, lines added/removed), commits ahead, uncommitted files, and with `diff: true` the patch (capped at 4 MB; `color` for a pager). Code not_a_worktree for a pane that does not work in one.',
  params: z.object({ ...targetShape, diff: z.boolean().default(false), color: z.boolean().default(false) }).strict(),
  result: worktreeRow.extend({
    files: z.array(z.object({ path: z.string(), status: z.string(), added: z.number(), removed: z.number() })),
    ahead: z.number(),
    uncommitted: z.number(),
    diff: z.string().optional(),
  }),
  handler: async ({ session }, p) => (await worktreesOf(session).review(targetOf(p), { diff: p.diff, color: p.color })) as never,
});
