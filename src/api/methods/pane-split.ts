// pane.split: open a new pane beside an existing one, running a shell or a given command.
import { z } from 'zod';
import { directionSchema, paneIdSchema } from '../../core/actions.js';
import type { SessionApi } from '../context.js';
import { defineMethod } from '../define-method.js';
import { episodesOf } from './episode-get.js';
import { startInWorktree } from '../../worktree/index.js';
import { worktreeParam, worktreeResult, worktreesOf } from './worktree-list.js';

export default defineMethod({
  name: 'pane.split',
  description:
    'Split a pane (default: the active pane of the current window). The new pane runs `command` (argv; a single string with shell syntax, such as `["make && make test"]`, runs through `/bin/sh -c`, as in tmux) or the user\'s shell. With `sub_harness: true` the new pane is a sub-harness of `pane_id` (which must be in a recursive episode, `castellan run --rlm`): placed beside it (first child to the right, later ones below the last child; `direction` and `percent` are ignored), its border naming parent→child, inheriting the goal, within `[limits]` (code `limit_exceeded`); the governance SessionStart hooks run first (a failure: code `denied` with the hook\'s reason). `focus` defaults to true, false for a sub-harness. With `worktree` (true, or a branch name) the pane starts in a new git worktree on a new branch from the HEAD of the repository at `cwd` (or the pane\'s directory), as agent.start does.',
  params: z
    .object({
      pane_id: paneIdSchema.optional(),
      direction: directionSchema.default('right'),
      command: z.array(z.string()).min(1).optional(),
      cwd: z.string().optional(),
      name: z.string().max(200).optional(),
      env: z.record(z.string(), z.string()).optional(),
      percent: z.number().int().min(1).max(99).optional(),
      focus: z.boolean().optional(),
      sub_harness: z.boolean().default(false),
      worktree: worktreeParam.optional(),
    })
    .strict(),
  result: z.object({ pane_id: z.string(), window_id: z.string(), parent: z.string().optional(), depth: z.number().optional(), goal_id: z.string().optional(), worktree: worktreeResult.optional() }),
  handler: async ({ session }, p) => {
    // The repository is the one the split pane is in (as for the new pane's cwd): the given pane, else the current window's active one.
    const st = session.state();
    const near = p.pane_id ?? st.windows[st.currentWindow ?? '']?.active ?? '';
    const from = p.cwd ?? (await session.paneInfo(near)?.freshCwd?.()) ?? st.panes[near]?.cwd ?? process.cwd();
    const wt = p.worktree ? await startInWorktree(worktreesOf(session), { cwd: from, worktree: p.worktree, parent: p.sub_harness ? p.pane_id : undefined }) : undefined;
    try {
      const r = await split(session, { ...p, ...(wt ? { cwd: wt.cwd, env: { ...p.env, ...wt.env } } : {}) });
      return wt ? { ...r, worktree: wt.opened(r.pane_id) } : r;
    } catch (e) {
      await wt?.failed();
      throw e;
    }
  },
});

type SplitParams = { pane_id?: string; direction: 'left' | 'right' | 'up' | 'down'; command?: string[]; cwd?: string; name?: string; env?: Record<string, string>; percent?: number; focus?: boolean; sub_harness: boolean };

async function split(session: SessionApi, p: SplitParams) {
  if (p.sub_harness) {
    const r = await episodesOf(session).split({
      type: 'pane.split',
      pane: p.pane_id,
      command: p.command,
      cwd: p.cwd,
      name: p.name,
      env: p.env,
      subHarness: true,
      detached: p.focus !== true,
    });
    const x = r.result as { pane: string; window: string; parent: string; depth: number; goal_id: string };
    return { pane_id: x.pane, window_id: x.window, parent: x.parent, depth: x.depth, goal_id: x.goal_id };
  }
  const r = session.dispatch({
    type: 'pane.split',
    pane: p.pane_id,
    direction: p.direction,
    command: p.command,
    cwd: p.cwd,
    name: p.name,
    env: p.env,
    percent: p.percent,
    detached: p.focus === false,
  });
  return { pane_id: String(r.result?.pane), window_id: String(r.result?.window) };
}
