// events.wait: block until one event matches (or a pane's agent reaches a state), with a timeout.
import { z } from 'zod';
import { agentStateSchema, paneIdSchema } from '../../core/actions.js';
import { defineMethod } from '../define-method.js';
import { waitFor } from '../wait.js';

export default defineMethod({
  name: 'events.wait',
  description:
    'Wait for one event. With `states`, waits until the agent in `panes` is in one of them (`mode: "any"` or `"all"`), answering at once if it already is (`current`, default true). `idle` means the agent is not working: it also matches `done` (idle with a finished turn nobody has looked at). `done` means the agent finished its turn: it matches a pane in state `done` now, or a turn that ends during the wait, whether or not anyone looks at the pane (a focused pane\'s `done` turns `idle` at once; the `pane_agent_turn_ended` event marks it). Fails with `pane_gone` if a watched pane closes or exits, and `timeout` after `timeout_ms`.',
  params: z
    .object({
      types: z.array(z.string().max(100)).max(100).optional(),
      panes: z.array(paneIdSchema).max(1000).optional(),
      states: z.array(agentStateSchema).min(1).optional(),
      mode: z.enum(['any', 'all']).default('any'),
      timeout_ms: z.number().int().min(1).max(7 * 24 * 3600 * 1000).default(60_000),
      current: z.boolean().default(true),
    })
    .strict(),
  result: z.object({ event: z.record(z.string(), z.unknown()), matched: z.array(z.string()), states: z.record(z.string(), agentStateSchema) }),
  handler: ({ session, conn }, p) =>
    waitFor(session, conn, { types: p.types, panes: p.panes, states: p.states, mode: p.mode, timeoutMs: p.timeout_ms, current: p.current }) as never,
});
