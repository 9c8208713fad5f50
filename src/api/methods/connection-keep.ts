// connection.keep: this connection stays open while idle (the server otherwise closes an answered, idle one: idle-close.ts).
import { z } from 'zod';
import { defineMethod } from '../define-method.js';

export default defineMethod({
  name: 'connection.keep',
  description:
    'Keep this connection open while it is idle. Without it the server closes a connection that has been answered and has nothing pending (no request in flight, no subscription, no attached client, no half-sent line) once it has been quiet for 200 ms, so `printf REQUEST | nc -U SOCKET` returns at once. A client that sends requests now and then on one connection sends this first (as a notification, without an id, it has no reply); castellan\'s own clients do.',
  params: z.object({}).strict().optional(),
  result: z.object({ keep: z.literal(true) }),
  handler: ({ conn }) => {
    conn.keep = true;
    return { keep: true as const };
  },
  // Sent by every castellan client as its first line: no schema on that path.
  quick: (p) => (p !== null && typeof p === 'object' && !Array.isArray(p) && Object.keys(p).length === 0 ? {} : undefined),
});
