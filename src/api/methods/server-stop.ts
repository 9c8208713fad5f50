// server.stop: end the server and every pane's program, keeping the session's snapshot (or dropping it with forget).
import { z } from 'zod';
import { defineMethod } from '../define-method.js';

export default defineMethod({
  name: 'server.stop',
  description: 'Stop the server; every pane\'s program is ended and attached clients exit. The session\'s snapshot is written first, so the next start restores it; `forget: true` deletes it instead.',
  params: z.object({ forget: z.boolean().optional() }).strict().optional(),
  result: z.object({ stopping: z.literal(true), snapshot: z.enum(['kept', 'forgotten', 'none']) }),
  handler: async ({ session }, p) => {
    let snapshot: 'kept' | 'forgotten' | 'none' = 'none';
    if (session.snapshots) {
      if (p?.forget) {
        await session.snapshots.forget();
        snapshot = 'forgotten';
      } else {
        snapshot = (await session.snapshots.save().catch(() => undefined)) ? 'kept' : 'none';
      }
    }
    setImmediate(() => session.shutdown('stopped by server.stop'));
    return { stopping: true as const, snapshot };
  },
});
