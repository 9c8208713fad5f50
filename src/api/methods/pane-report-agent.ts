// pane.report_agent: an agent (through its hook bridge) or a script reports the agent's state in a pane.
import { z } from 'zod';
import { agentSourceSchema, agentStateSchema, paneIdSchema } from '../../core/actions.js';
import { defineMethod } from '../define-method.js';

export default defineMethod({
  name: 'pane.report_agent',
  description:
    'Report the state of the agent in a pane. With `source: "hook"` the report outranks screen heuristics until the pane is reset, the next report, or its program exits. Only a report with `integration: true` (castellan\'s own bridge for an agent known to leave states unreported: interrupts, rejections) may be corrected by a screen that plainly shows otherwise; `herd explain` says when. Reports with a lower `seq` than the last are dropped.',
  params: z
    .object({
      pane_id: paneIdSchema,
      agent: z.string().min(1).max(64),
      state: agentStateSchema,
      source: agentSourceSchema.default('api'),
      message: z.string().max(2000).optional(),
      seq: z.number().int().nonnegative().optional(),
      session_id: z.string().max(200).optional(),
      /** The agent's own command-line arguments, when its process title no longer shows them (pi): restore keeps its flags. */
      args: z.array(z.string().max(4096)).max(64).optional(),
      integration: z.boolean().optional(),
    })
    .strict(),
  result: z.object({ pane_id: z.string(), state: agentStateSchema, ignored: z.string().optional() }),
  handler: ({ session }, p) => {
    const pane = session.state().panes[p.pane_id];
    if (pane && p.source === 'hook' && p.integration && session.detection.screenOutranks(p.pane_id, p.state)) {
      return { pane_id: p.pane_id, state: pane.agent.state, ignored: 'late: the screen shows otherwise since before it (an unanswered dialog)' };
    }
    const r = session.dispatch({ type: 'agent.report', pane: p.pane_id, agent: p.agent, state: p.state, source: p.source, message: p.message, seq: p.seq, sessionId: p.session_id, ...(p.args ? { args: p.args } : {}), ...(p.integration ? { integration: true } : {}) });
    if (p.source === 'hook') session.detection.hookReported(p.pane_id);
    return { pane_id: p.pane_id, state: r.state.panes[p.pane_id].agent.state, ...(r.result?.ignored ? { ignored: String(r.result.ignored) } : {}) };
  },
});
