// pane.break: tmux break-pane — a pane leaves its window for a new window of its own, keeping its id and program.
import { z } from 'zod';
import { paneIdSchema } from '../../core/actions.js';
import { defineMethod } from '../define-method.js';

export default defineMethod({
  name: 'pane.break',
  description: 'Move a pane (default: the active one) out of its window into a new window of its own; its id and program stay. `focus: false` leaves clients where they are. Refused (not_allowed) for a pane alone in its window.',
  params: z.object({ pane_id: paneIdSchema.optional(), name: z.string().max(200).optional(), focus: z.boolean().default(true) }).strict(),
  result: z.object({ pane_id: z.string(), window_id: z.string() }),
  handler: ({ session }, p) => {
    const r = session.dispatch({ type: 'pane.break', ...(p.pane_id ? { pane: p.pane_id } : {}), ...(p.name ? { name: p.name } : {}), detached: !p.focus });
    return { pane_id: String(r.result?.pane), window_id: String(r.result?.window) };
  },
});
