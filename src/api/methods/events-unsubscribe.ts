// events.unsubscribe: stop a stream started by events.subscribe on this connection.
import { z } from 'zod';
import { defineMethod } from '../define-method.js';

export default defineMethod({
  name: 'events.unsubscribe',
  description: 'Stop the event stream of an earlier events.subscribe (by its request id).',
  params: z.object({ subscription: z.union([z.string(), z.number()]) }).strict(),
  result: z.object({ unsubscribed: z.boolean() }),
  handler: ({ conn }, p) => {
    const off = conn.subscriptions.get(p.subscription);
    off?.();
    conn.subscriptions.delete(p.subscription);
    return { unsubscribed: !!off };
  },
});
