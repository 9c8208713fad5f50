// window.close: close a window and all its panes.
import { z } from 'zod';
import { windowIdSchema } from '../../core/actions.js';
import { defineMethod } from '../define-method.js';

export default defineMethod({
  name: 'window.close',
  description: 'Close a window and end every pane in it. Closing the last window stops the server.',
  params: z.object({ window_id: windowIdSchema }).strict(),
  result: z.object({ closed: z.string() }),
  handler: ({ session }, p) => {
    session.dispatch({ type: 'window.close', window: p.window_id });
    return { closed: p.window_id };
  },
});
