// pane.reset_agent: forget hook reports for a pane; screen heuristics take over again.
import { z } from 'zod';
import { agentStateSchema, paneIdSchema } from '../../core/actions.js';
import { defineMethod } from '../define-method.js';

export default defineMethod({
  name: 'pane.reset_agent',
  description: 'Forget the hook-reported agent state of a pane: screen heuristics decide again.',
  params: z.object({ pane_id: paneIdSchema }).strict(),
  result: z.object({ pane_id: z.string(), state: agentStateSchema }),
  handler: ({ session }, { pane_id }) => {
    const r = session.dispatch({ type: 'agent.reset', pane: pane_id });
    return { pane_id, state: r.state.panes[pane_id].agent.state };
  },
});
