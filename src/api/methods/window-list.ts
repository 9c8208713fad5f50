// window.list: windows in bar order.
import { z } from 'zod';
import { defineMethod } from '../define-method.js';
import { windowInfos, windowInfoSchema } from '../pane-info.js';

export default defineMethod({
  name: 'window.list',
  description: 'List windows in bar order with their panes.',
  params: z.object({}).strict().optional(),
  result: z.object({ windows: z.array(windowInfoSchema) }),
  handler: ({ session }) => ({ windows: windowInfos(session.state()) }),
});
