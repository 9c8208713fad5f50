// agent.start: launch an agent definition in a new pane; its hooks are registered for exactly that agent's life.
import { z } from 'zod';
import { directionSchema, paneIdSchema } from '../../core/actions.js';
import { defineMethod } from '../define-method.js';
import { agentsOf } from './agent-list.js';
import { worktreeParam, worktreeResult } from './worktree-list.js';

export default defineMethod({
  name: 'agent.start',
  description:
    'Start the agent definition `name` in a new pane, split from `pane` (a pane id; "new" or omitted: the active pane). The pane gets CASTELLAN_AGENT_ID (a new id such as my-agent-3f2a) and CASTELLAN_AGENT_TYPE. The definition\'s instructions and SubagentStart output reach the agent as its first message; `prompt` follows them. An untrusted project definition is refused (code denied). With `parent` (a pane in a recursive episode) it opens as a sub-harness pane of it, as `pane.split` `sub_harness` does (limits, SessionStart hooks, goal); `focus` then defaults to false. With `worktree` (true, or a branch name) the agent starts in a new git worktree on a new branch (default castellan/NAME-ID) from the HEAD of the repository at `cwd` / the pane\'s directory; its border shows the branch and a live change summary; review and merge it with worktree.review / worktree.merge. Tracked changes in the base checkout do not stop it (the worktree starts from HEAD and the base is not touched): `worktree.base_uncommitted` names them and `worktree.note` says they are not in the worktree. Outside a repository: code not_a_repository; an existing branch, submodules or LFS: code worktree_refused (data.reason), the repository left as it was.',
  params: z
    .object({
      name: z.string().min(1).max(64),
      pane: z.union([z.literal('new'), paneIdSchema]).optional(),
      prompt: z.string().max(1_000_000).optional(),
      cwd: z.string().optional(),
      direction: directionSchema.optional(),
      focus: z.boolean().optional(),
      parent: paneIdSchema.optional(),
      worktree: worktreeParam.optional(),
    })
    .strict(),
  result: z.object({ agent_id: z.string(), agent_type: z.string(), pane_id: z.string(), window_id: z.string(), kind: z.string(), delivery: z.enum(['session_start', 'typed']), worktree: worktreeResult.optional() }),
  handler: async ({ session }, p) => {
    const r = await agentsOf(session).start({ name: p.name, pane: p.pane, prompt: p.prompt, cwd: p.cwd, direction: p.direction, focus: p.focus, parent: p.parent, worktree: p.worktree });
    return r as { agent_id: string; agent_type: string; pane_id: string; window_id: string; kind: string; delivery: 'session_start' | 'typed'; worktree?: z.infer<typeof worktreeResult> };
  },
});
