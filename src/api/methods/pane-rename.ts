// pane.rename: set (or clear, with "") a pane's name shown in its border.
import { z } from 'zod';
import { paneIdSchema } from '../../core/actions.js';
import { defineMethod } from '../define-method.js';

export default defineMethod({
  name: 'pane.rename',
  description: 'Name a pane (shown in its border); an empty name falls back to the program\'s title.',
  params: z.object({ pane_id: paneIdSchema, name: z.string().max(200) }).strict(),
  result: z.object({ pane_id: z.string(), name: z.string() }),
  handler: ({ session }, { pane_id, name }) => {
    const r = session.dispatch({ type: 'pane.rename', pane: pane_id, name });
    return { pane_id, name: r.state.panes[pane_id]?.name ?? '' };
  },
});
