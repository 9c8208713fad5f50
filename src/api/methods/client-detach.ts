// client.detach: this client leaves; panes keep running.
import { z } from 'zod';
import { defineMethod } from '../define-method.js';
import { ApiError } from '../protocol.js';

export default defineMethod({
  name: 'client.detach',
  description: 'Detach this client; the server and every pane keep running.',
  internal: true,
  params: z.object({}).strict().optional(),
  result: z.object({ detached: z.literal(true) }),
  handler: ({ session, conn }) => {
    if (!conn.clientId) throw new ApiError('not_attached', 'not attached');
    session.detach(conn.clientId, 'detached');
    return { detached: true as const };
  },
});
