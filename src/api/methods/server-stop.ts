// server.stop: end the server and every pane's program, keeping the session's snapshot (or dropping it with forget).
import { z } from 'zod';
import { defineMethod } from '../define-method.js';

export default defineMethod({
  name: 'server.stop',
  description:
    'Stop the server; every pane\'s program is ended and attached clients exit. The session\'s snapshot is written first, so the next start restores it; `forget: true` deletes it instead; `kill: true` (kill-session, kill-server) saves it aside, not restored at the next start, kept a day (`kept_as`).',
  params: z.object({ forget: z.boolean().optional(), kill: z.boolean().optional() }).strict().optional(),
  result: z.object({ stopping: z.literal(true), snapshot: z.enum(['kept', 'forgotten', 'killed', 'none']), kept_as: z.string().optional() }),
  handler: async ({ session }, p) => {
    let snapshot: 'kept' | 'forgotten' | 'killed' | 'none' = 'none';
    let keptAs: string | undefined;
    if (session.snapshots) {
      if (p?.kill && !p.forget) {
        keptAs = await session.snapshots.killed();
        snapshot = 'killed';
      } else if (p?.forget) {
        await session.snapshots.forget();
        snapshot = 'forgotten';
      } else {
        snapshot = (await session.snapshots.save().catch(() => undefined)) ? 'kept' : 'none';
      }
    }
    setImmediate(() => session.shutdown('stopped by server.stop'));
    return { stopping: true as const, snapshot, ...(keptAs ? { kept_as: keptAs } : {}) };
  },
});
