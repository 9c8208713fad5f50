// client.resize: the client's terminal changed size.
import { z } from 'zod';
import { defineMethod } from '../define-method.js';
import { ApiError } from '../protocol.js';

export default defineMethod({
  name: 'client.resize',
  description: 'The attached client\'s terminal is now cols×rows.',
  internal: true,
  params: z.object({ cols: z.number().int().min(1).max(10000), rows: z.number().int().min(1).max(10000) }).strict(),
  result: z.object({ ok: z.literal(true) }),
  handler: ({ session, conn }, p) => {
    if (!conn.clientId) throw new ApiError('not_attached', 'attach first');
    session.clientResize(conn.clientId, p.cols, p.rows);
    return { ok: true as const };
  },
});
