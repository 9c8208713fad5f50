// window.synchronize: tmux synchronize-panes — what an attached client types reaches every pane of the window.
import { z } from 'zod';
import { windowIdSchema } from '../../core/actions.js';
import { defineMethod } from '../define-method.js';

export default defineMethod({
  name: 'window.synchronize',
  description: 'Switch synchronize-panes on, off or over (default) for a window (default: the current one): keys and pastes from attached clients go to all its panes. Its tab shows S.',
  params: z.object({ window_id: windowIdSchema.optional(), mode: z.enum(['toggle', 'on', 'off']).default('toggle') }).strict(),
  result: z.object({ window_id: z.string(), synchronized: z.boolean() }),
  handler: ({ session }, p) => {
    const r = session.dispatch({ type: 'window.synchronize', ...(p.window_id ? { window: p.window_id } : {}), mode: p.mode });
    return { window_id: String(r.result?.window), synchronized: r.result?.synchronized === true };
  },
});
