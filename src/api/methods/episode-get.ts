// episode.get: a pane's episode (goal, depth) and the tree of sub-harness panes below it, with their agent states.
import { z } from 'zod';
import { paneIdSchema } from '../../core/actions.js';
import type { SessionApi } from '../context.js';
import { defineMethod } from '../define-method.js';
import { ApiError } from '../protocol.js';

export function episodesOf(session: SessionApi): NonNullable<SessionApi['episodes']> {
  if (!session.episodes) throw new ApiError('internal_error', 'this server does not run episodes');
  return session.episodes;
}

type Node = {
  pane_id: string;
  parent?: string;
  goal_id?: string;
  depth?: number;
  rlm?: boolean;
  state: string;
  agent?: string;
  exited?: { code: number | null; signal?: number | null };
  children: Node[];
};

const node: z.ZodType<Node> = z.lazy(() =>
  z.object({
    pane_id: z.string(),
    parent: z.string().optional(),
    goal_id: z.string().optional(),
    depth: z.number().optional(),
    rlm: z.boolean().optional(),
    state: z.string(),
    agent: z.string().optional(),
    exited: z.object({ code: z.number().nullable(), signal: z.number().nullable().optional() }).optional(),
    children: z.array(node),
  }),
);

export default defineMethod({
  name: 'episode.get',
  description: 'A pane\'s episode (`goal_id`, `depth`, `rlm`, `parent`) and the tree of sub-harness panes it opened (`children`, recursively), each with its agent state and exit status.',
  params: z.object({ pane_id: paneIdSchema }).strict(),
  result: node,
  handler: ({ session }, p) => episodesOf(session).tree(p.pane_id) as Node,
});
