// episode.start: make a pane the root of a recursive episode (`castellan run --rlm`), so its agent may open sub-harness panes.
import { z } from 'zod';
import { goalIdSchema, paneIdSchema } from '../../core/actions.js';
import { defineMethod } from '../define-method.js';
import { episodesOf } from './episode-get.js';

export default defineMethod({
  name: 'episode.start',
  description:
    'Mark `pane_id` as the root of an episode with `goal_id` (depth 0); with `rlm` (default true) the agent in it may delegate: open sub-harness panes with `pane.split` `sub_harness: true` or `agent.start` `parent`. A pane that is itself a sub-harness keeps its tree\'s goal and depth (the result says which goal applies).',
  params: z.object({ pane_id: paneIdSchema, goal_id: goalIdSchema, rlm: z.boolean().default(true) }).strict(),
  result: z.object({ pane_id: z.string(), goal_id: z.string(), depth: z.number(), rlm: z.boolean(), sub_harness: z.boolean(), parent: z.string().optional() }),
  handler: ({ session }, p) => {
    const r = episodesOf(session).start({ paneId: p.pane_id, goalId: p.goal_id, rlm: p.rlm });
    return { ...r, pane_id: String(r.pane) } as never;
  },
});
