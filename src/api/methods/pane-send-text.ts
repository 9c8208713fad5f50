// pane.send_text: type text into a pane (optionally as a bracketed paste, optionally followed by Enter).
import { z } from 'zod';
import { paneIdSchema } from '../../core/actions.js';
import { defineMethod } from '../define-method.js';

export default defineMethod({
  name: 'pane.send_text',
  description: 'Write text to a pane\'s program as if typed. `paste: true` wraps it in bracketed paste when the program asked for it; `enter: true` presses Enter after it.',
  params: z.object({ pane_id: paneIdSchema, text: z.string().max(1_000_000), paste: z.boolean().default(false), enter: z.boolean().default(false) }).strict(),
  result: z.object({ pane_id: z.string(), bytes: z.number() }),
  handler: ({ session }, p) => {
    session.writePane(p.pane_id, p.text, { paste: p.paste });
    if (p.enter) session.writePane(p.pane_id, '\r');
    return { pane_id: p.pane_id, bytes: Buffer.byteLength(p.text) + (p.enter ? 1 : 0) };
  },
});
