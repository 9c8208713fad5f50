// window.select: show a window (by id or bar number) to attached clients.
import { z } from 'zod';
import { windowIdSchema } from '../../core/actions.js';
import { defineMethod } from '../define-method.js';

export default defineMethod({
  name: 'window.select',
  description: 'Show a window to attached clients, by id (`w2`) or bar number.',
  params: z.object({ window_id: windowIdSchema.optional(), index: z.number().int().min(0).optional() }).strict(),
  result: z.object({ window_id: z.string() }),
  handler: ({ session }, p) => {
    const r = session.dispatch({ type: 'window.select', window: p.window_id, index: p.index });
    return { window_id: String(r.result?.window) };
  },
});
