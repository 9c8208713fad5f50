// pane.respawn: tmux respawn-pane — run a pane's command again, in its cwd.
import { z } from 'zod';
import { paneIdSchema } from '../../core/actions.js';
import { defineMethod } from '../define-method.js';

export default defineMethod({
  name: 'pane.respawn',
  description: 'Run an exited pane\'s command again in its directory (a fresh screen, the same id). A running pane is refused (not_allowed) unless `kill: true`, which ends it first.',
  params: z.object({ pane_id: paneIdSchema.optional(), kill: z.boolean().default(false) }).strict(),
  result: z.object({ pane_id: z.string() }),
  handler: ({ session }, p) => {
    const r = session.dispatch({ type: 'pane.respawn', ...(p.pane_id ? { pane: p.pane_id } : {}), kill: p.kill });
    return { pane_id: String(r.result?.pane) };
  },
});
