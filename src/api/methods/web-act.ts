// web.act: an action from a web page served by another session's server, carried out and audited here.
import { z } from 'zod';
import { paneIdSchema } from '../../core/actions.js';
import { ApiError } from '../errors.js';
import { defineMethod } from '../define-method.js';

const who = { browser_session: z.string().regex(/^b[0-9a-f]{8}$/), remote: z.string().max(100), via: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/) };

export default defineMethod({
  name: 'web.act',
  description:
    "A web page's action on a pane of this session, from the server that serves the page (`via`): `typing` on/off, `input` (keys), `answer` (approve / deny, with an optional message), `prompt`. Checked and audited here with the browser session, as the page's own actions are.",
  params: z.discriminatedUnion('t', [
    z.object({ t: z.literal('typing'), pane: paneIdSchema, on: z.boolean(), ...who }).strict(),
    z.object({ t: z.literal('input'), pane: paneIdSchema, data: z.string().min(1).max(4096), ...who }).strict(),
    z.object({ t: z.literal('answer'), pane: paneIdSchema, answer: z.enum(['approve', 'deny']), message: z.string().max(4000).optional(), ...who }).strict(),
    z.object({ t: z.literal('prompt'), pane: paneIdSchema, text: z.string().min(1).max(16_000), ...who }).strict(),
  ]),
  result: z.object({ ok: z.literal(true) }),
  handler: async ({ session }, p) => {
    if (!session.web) throw new ApiError('not_allowed', 'this server has no web view');
    try {
      await session.web.act(p);
    } catch (e) {
      throw e instanceof ApiError ? e : new ApiError('not_allowed', (e as Error).message);
    }
    return { ok: true as const };
  },
});
