// window.rename: name a window in the bar.
import { z } from 'zod';
import { windowIdSchema } from '../../core/actions.js';
import { defineMethod } from '../define-method.js';

export default defineMethod({
  name: 'window.rename',
  description: 'Name a window (an empty name falls back to the active pane\'s title).',
  params: z.object({ window_id: windowIdSchema, name: z.string().max(200) }).strict(),
  result: z.object({ window_id: z.string() }),
  handler: ({ session }, p) => {
    session.dispatch({ type: 'window.rename', window: p.window_id, name: p.name });
    return { window_id: p.window_id };
  },
});
