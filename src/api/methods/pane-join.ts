// pane.join: tmux join-pane — move a pane next to another (in any window), splitting that one.
import { z } from 'zod';
import { directionSchema, paneIdSchema } from '../../core/actions.js';
import { defineMethod } from '../define-method.js';

export default defineMethod({
  name: 'pane.join',
  description: 'Move pane `pane_id` beside `target` (default: the active pane of the current window), on its `direction` side; a window left empty closes. Its id and program stay.',
  params: z.object({ pane_id: paneIdSchema, target: paneIdSchema.optional(), direction: directionSchema.default('right'), focus: z.boolean().default(true) }).strict(),
  result: z.object({ pane_id: z.string(), window_id: z.string() }),
  handler: ({ session }, p) => {
    const r = session.dispatch({ type: 'pane.join', pane: p.pane_id, ...(p.target ? { target: p.target } : {}), direction: p.direction, detached: !p.focus });
    return { pane_id: String(r.result?.pane), window_id: String(r.result?.window) };
  },
});
