// pane.list: every pane (optionally of one window) with its agent state.
import { z } from 'zod';
import { windowIdSchema } from '../../core/actions.js';
import { defineMethod } from '../define-method.js';
import { paneInfo, paneInfoSchema } from '../pane-info.js';
import { focusedPanes, windowsInOrder } from '../../core/select.js';
import { panesOf } from '../../core/layout.js';

export default defineMethod({
  name: 'pane.list',
  description: 'List panes in window order (optionally of one window), with agent state and process info.',
  params: z.object({ window_id: windowIdSchema.optional() }).strict().optional(),
  result: z.object({ panes: z.array(paneInfoSchema) }),
  handler: ({ session }, params) => {
    const state = session.state();
    const focused = focusedPanes(state);
    const panes = windowsInOrder(state)
      .filter((w) => !params?.window_id || w.id === params.window_id)
      .flatMap((w) => panesOf(w.layout).map((id) => paneInfo(session, state, state.panes[id], focused)));
    return { panes };
  },
});
