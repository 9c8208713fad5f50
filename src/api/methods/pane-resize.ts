// pane.resize: move a pane's border by cells, as tmux resize-pane -L/-R/-U/-D does.
import { z } from 'zod';
import { RESIZE_CELLS_MAX } from '../../core/action-limits.js';
import { directionSchema, paneIdSchema } from '../../core/actions.js';
import { targetPaneId } from '../../core/select.js';
import { defineMethod } from '../define-method.js';

export default defineMethod({
  name: 'pane.resize',
  description: 'Move a pane\'s border by `cells` (default 1) toward `direction`, as tmux resize-pane: the border after the pane in its row or column, the one before it for the last pane. Default pane: the active one.',
  params: z.object({ pane_id: paneIdSchema.optional(), direction: directionSchema, cells: z.number().int().min(1).max(RESIZE_CELLS_MAX).optional() }).strict(),
  result: z.object({ pane_id: z.string() }),
  handler: ({ session }, p) => {
    const r = session.dispatch({ type: 'pane.resize', pane: p.pane_id, direction: p.direction, cells: p.cells ?? 1 });
    return { pane_id: targetPaneId(r.state, undefined, p.pane_id) ?? '' };
  },
});
