// pane.send_keys: press named keys in a pane ("Enter", "C-c", "Up", "M-x", "F5", or literal text).
import { z } from 'zod';
import { paneIdSchema } from '../../core/actions.js';
import { keyToBytes } from '../../input/keys.js';
import { defineMethod } from '../define-method.js';
import { ApiError } from '../protocol.js';

export default defineMethod({
  name: 'pane.send_keys',
  description: 'Press keys in a pane. Each entry is a key name (Enter, Escape, Tab, C-c, M-x, Up, PageDown, F1…) or, when `literal` is true, text typed as is. `unknown: "text"` types an entry that names no key as text, as tmux send-keys does.',
  params: z.object({ pane_id: paneIdSchema, keys: z.array(z.string().max(100_000)).min(1).max(10_000), literal: z.boolean().default(false), unknown: z.enum(['error', 'text']).default('error') }).strict(),
  result: z.object({ pane_id: z.string(), sent: z.number() }),
  handler: ({ session }, p) => {
    const parts: string[] = [];
    for (const k of p.keys) {
      if (p.literal) {
        parts.push(k);
        continue;
      }
      const bytes = keyToBytes(k);
      if (bytes === undefined) {
        // A single printable character is its own key; anything else is an error rather than a guess.
        if ([...k].length === 1 || p.unknown === 'text') parts.push(k);
        else throw new ApiError('invalid_params', `unknown key name "${k}" (use literal: true to type text)`);
      } else parts.push(bytes);
    }
    for (const b of parts) session.writePane(p.pane_id, b);
    return { pane_id: p.pane_id, sent: parts.length };
  },
});
