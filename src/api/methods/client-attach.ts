// client.attach: turn this connection into a UI client that receives frames and sends input.
import { z } from 'zod';
import { windowIdSchema } from '../../core/actions.js';
import { defineMethod } from '../define-method.js';
import { ApiError } from '../protocol.js';

export default defineMethod({
  name: 'client.attach',
  description: 'Attach this connection as a UI client: the server then pushes {"frame": …} messages sized to cols×rows.',
  internal: true,
  params: z.object({ cols: z.number().int().min(1).max(10000), rows: z.number().int().min(1).max(10000), term: z.string().max(200).optional(), window_id: windowIdSchema.optional() }).strict(),
  result: z.record(z.string(), z.unknown()),
  handler: async ({ session, conn }, p) => {
    if (conn.clientId) throw new ApiError('not_allowed', 'this connection is already attached');
    return session.attach(conn, { cols: p.cols, rows: p.rows, term: p.term, window: p.window_id });
  },
});
