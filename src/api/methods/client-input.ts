// client.input: keys, pastes, mouse and focus events from an attached client, for its focused pane.
import { z } from 'zod';
import { defineMethod } from '../define-method.js';
import { ApiError } from '../protocol.js';

const input = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('data'), data: z.string().max(1_000_000) }),
  z.object({ kind: z.literal('paste'), text: z.string().max(1_000_000), part: z.enum(['first', 'more', 'last']).optional() }),
  z.object({
    kind: z.literal('mouse'),
    action: z.enum(['press', 'release', 'move', 'wheel-up', 'wheel-down']),
    button: z.number().int().min(0).max(11),
    x: z.number().int().min(0),
    y: z.number().int().min(0),
    shift: z.boolean().optional(),
    meta: z.boolean().optional(),
    ctrl: z.boolean().optional(),
  }),
  z.object({ kind: z.literal('focus'), focused: z.boolean() }),
]);

export default defineMethod({
  name: 'client.input',
  description: 'Input from an attached client for its focused pane (bytes, paste, mouse in client coordinates, focus).',
  internal: true,
  params: input,
  result: z.object({ ok: z.literal(true) }),
  handler: ({ session, conn }, p) => {
    if (!conn.clientId) throw new ApiError('not_attached', 'attach first');
    session.clientInput(conn.clientId, p);
    return { ok: true as const };
  },
});
