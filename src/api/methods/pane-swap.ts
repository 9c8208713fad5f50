// pane.swap: exchange two panes' places in a window (tmux swap-pane).
import { z } from 'zod';
import { directionSchema, paneIdSchema } from '../../core/actions.js';
import { targetPaneId } from '../../core/select.js';
import { defineMethod } from '../define-method.js';

export default defineMethod({
  name: 'pane.swap',
  description: 'Swap a pane (default: the active one) with `with`: another pane of its window by id, `next`/`prev` in layout order (tmux swap-pane -D/-U) or the neighbour in a direction.',
  params: z.object({ pane_id: paneIdSchema.optional(), with: z.union([paneIdSchema, z.enum(['next', 'prev']), directionSchema]).optional() }).strict(),
  result: z.object({ pane_id: z.string() }),
  handler: ({ session }, p) => {
    const r = session.dispatch({ type: 'pane.swap', pane: p.pane_id, with: p.with ?? 'next' });
    return { pane_id: targetPaneId(r.state, undefined, p.pane_id) ?? '' };
  },
});
