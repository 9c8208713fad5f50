// popup.close: ends a popup early (its program is killed) — by id, on a client, or the caller's own.
import { z } from 'zod';
import { ApiError } from '../errors.js';
import { defineMethod } from '../define-method.js';

export default defineMethod({
  name: 'popup.close',
  description: 'Close a popup before its program exits (the program is killed): `popup_id`, or the one on `client_id` (default: the caller\'s own client). `closed` is false when there was none.',
  params: z.object({ popup_id: z.string().regex(/^popup\d{1,9}$/).optional(), client_id: z.string().regex(/^c\d{1,9}$/).optional() }).strict().optional(),
  result: z.object({ closed: z.boolean(), popup_id: z.string().optional() }),
  handler: ({ session, conn }, p = {}) => {
    if (!session.popups) throw new ApiError('not_allowed', 'this server has no popups');
    const client = p.client_id ?? (p.popup_id ? undefined : conn.clientId);
    if (!client && !p.popup_id) throw new ApiError('invalid_params', 'name a popup_id or a client_id (or call from an attached client)');
    const id = session.popups.close({ ...(p.popup_id ? { popup: p.popup_id } : {}), ...(client ? { client } : {}) });
    return { closed: !!id, ...(id ? { popup_id: id } : {}) };
  },
});
