// web.herd: this session's panes as the web page lists them, for the server whose page spans every session.
import { z } from 'zod';
import { ApiError } from '../errors.js';
import { defineMethod } from '../define-method.js';

export default defineMethod({
  name: 'web.herd',
  description:
    "This session's herd as the web page shows it: every pane with its agent, badge state, message, since, needs_me first. The server serving the page asks every other session (and machine) for it, again after each of their events.",
  params: z.object({}).strict().optional(),
  result: z.object({ session: z.string(), rows: z.array(z.record(z.string(), z.unknown())) }),
  handler: async ({ session }) => {
    if (!session.web) throw new ApiError('not_allowed', 'this server has no web view');
    return (await session.web.herd()) as { session: string; rows: Array<Record<string, unknown>> };
  },
});
