// client.copy: copy-mode operations and pasting castellan's buffer, for the client's focused pane.
import { z } from 'zod';
import { defineMethod } from '../define-method.js';
import { ApiError } from '../protocol.js';

export default defineMethod({
  name: 'client.copy',
  description: 'Copy mode on the attached client\'s focused pane (enter, exit, a key, scroll), or paste the newest buffer.',
  internal: true,
  params: z.discriminatedUnion('op', [
    z.object({ op: z.literal('enter') }),
    z.object({ op: z.literal('exit') }),
    z.object({ op: z.literal('paste') }),
    z.object({ op: z.literal('key'), key: z.string().min(1).max(64) }),
    z.object({ op: z.literal('scroll'), lines: z.number().int().min(-100000).max(100000) }),
  ]),
  result: z.object({ ok: z.literal(true) }),
  handler: ({ session, conn }, p) => {
    if (!conn.clientId) throw new ApiError('not_attached', 'attach first');
    session.clientCopy(conn.clientId, p);
    return { ok: true as const };
  },
});
