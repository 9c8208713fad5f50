// pane.get: one pane's details.
import { z } from 'zod';
import { paneIdSchema } from '../../core/actions.js';
import { defineMethod } from '../define-method.js';
import { paneInfo, paneInfoSchema } from '../pane-info.js';
import { ApiError } from '../protocol.js';

export default defineMethod({
  name: 'pane.get',
  description: 'Details of one pane: title, command, size, process, agent state.',
  params: z.object({ pane_id: paneIdSchema }).strict(),
  result: paneInfoSchema,
  handler: ({ session }, { pane_id }) => {
    const state = session.state();
    const p = state.panes[pane_id];
    if (!p) throw new ApiError('pane_not_found', `no pane ${pane_id}`);
    return paneInfo(session, state, p);
  },
});
