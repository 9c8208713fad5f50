// episode.end: the episode's program ended; its sub-harness panes are closed (unless [limits] keep_children).
import { z } from 'zod';
import { paneIdSchema } from '../../core/actions.js';
import { defineMethod } from '../define-method.js';
import { episodesOf } from './episode-get.js';

export default defineMethod({
  name: 'episode.end',
  description:
    'End the episode rooted in `pane_id`: its sub-harness panes (and theirs) are closed and their programs ended, each with a `sub_harness_ended` event, unless config `[limits] keep_children = true` keeps them. Answers once the closed panes\' SessionEnd hooks have run (at most 60 s). Returns the panes closed and kept.',
  params: z.object({ pane_id: paneIdSchema }).strict(),
  result: z.object({ pane_id: z.string(), closed: z.array(z.string()), kept: z.array(z.string()) }),
  handler: async ({ session }, p) => {
    const r = (await episodesOf(session).end(p.pane_id)) as { closed: string[]; kept: string[] };
    return { pane_id: p.pane_id, closed: r.closed, kept: r.kept };
  },
});
