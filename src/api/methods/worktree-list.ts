// worktree.list: the agents' git worktrees this server made, with their panes, change summaries and the work each holds.
import { z } from 'zod';
import { paneIdSchema } from '../../core/actions.js';
import type { SessionApi } from '../context.js';
import { defineMethod } from '../define-method.js';
import { ApiError } from '../protocol.js';

/** The session's worktree manager, or a clear error from a session without one. */
export function worktreesOf(session: SessionApi): NonNullable<NonNullable<SessionApi['agents']>['worktrees']> {
  const w = session.agents?.worktrees;
  if (!w) throw new ApiError('internal_error', 'this server does not manage worktrees');
  return w;
}

/** `true` for a default branch name, or the branch to create (checked again with git check-ref-format); false: none. */
export const worktreeParam = z.union([z.boolean(), z.string().min(1).max(200)]);
/** `base_uncommitted`/`note`: the base checkout's tracked changes, which the new worktree (made from HEAD) does not have. */
export const worktreeResult = z.object({ id: z.string(), branch: z.string(), path: z.string(), base: z.string(), base_uncommitted: z.array(z.string()).optional(), note: z.string().optional() });

/** Which worktree: the pane working in it, or its id / branch (for one whose pane is closed). */
export const targetShape = { pane_id: paneIdSchema.optional(), id: z.string().min(1).max(200).optional() };
export const targetOf = (p: { pane_id?: string; id?: string }) => {
  if (!p.pane_id === !p.id) throw new ApiError('invalid_params', 'give exactly one of pane_id and id');
  return p.pane_id ? { pane: p.pane_id } : { id: p.id };
};

const summary = z.object({ files: z.number(), added: z.number(), removed: z.number(), ahead: z.number(), uncommitted: z.number(), missing: z.boolean().optional(), at: z.number() });

export const worktreeRow = z.object({
  id: z.string(),
  branch: z.string(),
  base: z.string(),
  path: z.string(),
  repo: z.string(),
  agent: z.string().nullable(),
  pane_id: z.string().nullable(),
  parent: z.string().nullable(),
  created_at: z.number(),
});

export default defineMethod({
  name: 'worktree.list',
  description:
    'Worktrees castellan made for agents (agent.start / pane.split with `worktree`), kept until pruned or discarded: branch, base, path, the pane working in it (null once closed), the change summary against the base (files, +/-, commits ahead, uncommitted files; `missing` when deleted by hand), `clean` (no uncommitted change, untracked or ignored file), `merged` (no commit only the worktree holds: on its HEAD, detached or not, its branch, a branch made in it, or either reflog, unless the base has the same patch; no stash made in it) and `work`: what removing it would lose, one line each (empty: worktree.prune removes it). null where git could not read it. With `pane_id` or `id`, only that worktree (code not_a_worktree if there is none).',
  params: z.object(targetShape).strict().default({}),
  result: z.object({ worktrees: z.array(worktreeRow.extend({ summary: summary.nullable(), clean: z.boolean().nullable(), merged: z.boolean().nullable(), work: z.array(z.string()).nullable() })) }),
  handler: async ({ session }, p) => ({ worktrees: (await worktreesOf(session).list(p.pane_id || p.id ? targetOf(p) : undefined)) as never }),
});
