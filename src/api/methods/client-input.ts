// client.input: keys, pastes, mouse and focus events from an attached client, for its focused pane.
import { z } from 'zod';
import { defineMethod } from '../define-method.js';
import { ApiError } from '../protocol.js';

const MAX_DATA = 1_000_000;

const input = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('data'), data: z.string().max(MAX_DATA) }),
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
  // A keystroke is this method's whole traffic: checked by hand (as the schema would: other keys stripped), ~0.1 ms
  // of cold zod less per key on the echo path. Anything else (paste, mouse, focus, odd shapes) takes the schema.
  quick: (p) => {
    if (typeof p !== 'object' || p === null) return undefined;
    const { kind, data } = p as { kind?: unknown; data?: unknown };
    return kind === 'data' && typeof data === 'string' && data.length <= MAX_DATA ? { kind: 'data' as const, data } : undefined;
  },
  handler: ({ session, conn }, p) => {
    if (!conn.clientId) throw new ApiError('not_attached', 'attach first');
    session.clientInput(conn.clientId, p);
    return { ok: true as const };
  },
});
