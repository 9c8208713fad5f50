// pane.focus: make a pane the active one (and show its window), or move focus by direction.
import { z } from 'zod';
import { directionSchema, paneIdSchema } from '../../core/actions.js';
import { defineMethod } from '../define-method.js';
import { targetPaneId } from '../../core/select.js';

export default defineMethod({
  name: 'pane.focus',
  description: 'Focus a pane by id (its window is shown to attached clients), or move focus from the active pane by direction.',
  params: z.object({ pane_id: paneIdSchema.optional(), direction: directionSchema.optional() }).strict(),
  result: z.object({ pane_id: z.string() }),
  handler: ({ session }, p) => {
    const r = session.dispatch({ type: 'pane.focus', pane: p.pane_id, direction: p.direction });
    return { pane_id: targetPaneId(r.state, undefined, p.direction ? undefined : p.pane_id) ?? '' };
  },
});
