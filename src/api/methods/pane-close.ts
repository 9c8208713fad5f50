// pane.close: close a pane and end its program.
import { z } from 'zod';
import { paneIdSchema } from '../../core/actions.js';
import { defineMethod } from '../define-method.js';

export default defineMethod({
  name: 'pane.close',
  description: 'Close a pane: its program and everything in its terminal session get SIGHUP, then SIGTERM, then SIGKILL; the last pane closes its window.',
  params: z.object({ pane_id: paneIdSchema }).strict(),
  result: z.object({ closed: z.string() }),
  handler: ({ session }, { pane_id }) => {
    session.dispatch({ type: 'pane.close', pane: pane_id });
    return { closed: pane_id };
  },
});
