// events.subscribe: stream events on this connection as {"id": <this request's id>, "event": {...}} lines.
import { z } from 'zod';
import { paneIdSchema } from '../../core/actions.js';
import { defineMethod } from '../define-method.js';
import { ApiError } from '../protocol.js';

export default defineMethod({
  name: 'events.subscribe',
  description:
    'Stream events on this connection. After the reply, each event arrives as {"id": <request id>, "event": {type, seq, ts, ...}}. Filter by `types` and `panes`. Ends when the connection closes or with events.unsubscribe.',
  params: z.object({ types: z.array(z.string().max(100)).max(100).optional(), panes: z.array(paneIdSchema).max(1000).optional() }).strict().optional(),
  result: z.object({ subscribed: z.literal(true), subscription: z.union([z.string(), z.number()]) }),
  handler: ({ session, conn, requestId: sub }, p) => {
    if (sub === undefined) throw new ApiError('invalid_request', 'events.subscribe needs a request id to tag events with');
    const off = session.subscribe({ types: p?.types, panes: p?.panes }, (event) => {
      conn.send({ id: sub, event });
    });
    conn.subscriptions.get(sub)?.();
    conn.subscriptions.set(sub, off);
    conn.onClose(off);
    return { subscribed: true as const, subscription: sub };
  },
});
