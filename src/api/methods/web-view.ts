// web.view: stream one pane's screen on this connection, for a web page served by another session's server.
import { z } from 'zod';
import { paneIdSchema } from '../../core/actions.js';
import { ApiError } from '../errors.js';
import { defineMethod } from '../define-method.js';

export default defineMethod({
  name: 'web.view',
  description:
    'Stream a pane as the web page draws it: the reply is its screen ({t:"screen", cols, rows, history, lines, cursor}); then each change arrives as {"id": <request id>, "web": {t:"frame", scroll?, above?, rows, cursor}} (at most 25 a second; a new {t:"screen"} after a resize). Ends with events.unsubscribe (this request id) or the connection.',
  params: z.object({ pane: paneIdSchema, history: z.number().int().min(0).max(2000).optional() }).strict(),
  result: z.record(z.string(), z.unknown()),
  handler: async ({ session, conn, requestId: sub }, p) => {
    if (!session.web) throw new ApiError('not_allowed', 'this server has no web view');
    if (sub === undefined) throw new ApiError('invalid_request', 'web.view needs a request id to tag frames with');
    if (!session.state().panes[p.pane]) throw new ApiError('pane_not_found', `no pane ${p.pane}`);
    const v = await session.web.view(p.pane, (msg) => conn.send({ id: sub, web: msg }));
    conn.subscriptions.get(sub)?.();
    conn.subscriptions.set(sub, v.stop);
    conn.onClose(v.stop);
    return v.first as Record<string, unknown>;
  },
});
