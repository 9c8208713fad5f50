// pane.explain: why a pane's badge shows what it shows: hook report, detection reading, matching rules, identity.
import { z } from 'zod';
import { paneIdSchema } from '../../core/actions.js';
import { defineMethod } from '../define-method.js';

export default defineMethod({
  name: 'pane.explain',
  description: 'Explain a pane\'s badge: the last hook report, the screen-heuristics reading and every rule that matches now, which agent was identified and how, and the bottom of the screen.',
  params: z.object({ pane_id: paneIdSchema }).strict(),
  result: z.record(z.string(), z.unknown()),
  handler: ({ session }, p) => session.explainPane(p.pane_id),
});
