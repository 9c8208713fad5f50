// pane.zoom: show one pane over its whole window, or the layout again (tmux resize-pane -Z).
import { z } from 'zod';
import { paneIdSchema } from '../../core/actions.js';
import { targetPaneId } from '../../core/select.js';
import { defineMethod } from '../define-method.js';

export default defineMethod({
  name: 'pane.zoom',
  description: 'Zoom a pane to its whole window (`on`), back to the layout (`off`), or the other of the two (`toggle`, the default), as tmux resize-pane -Z. Default pane: the active one.',
  params: z.object({ pane_id: paneIdSchema.optional(), mode: z.enum(['toggle', 'on', 'off']).optional() }).strict(),
  result: z.object({ pane_id: z.string(), zoomed: z.boolean() }),
  handler: ({ session }, p) => {
    const r = session.dispatch({ type: 'pane.zoom', pane: p.pane_id, mode: p.mode ?? 'toggle' });
    const id = targetPaneId(r.state, undefined, p.pane_id) ?? '';
    const w = Object.values(r.state.windows).find((x) => x.zoomed === id);
    return { pane_id: id, zoomed: !!w };
  },
});
