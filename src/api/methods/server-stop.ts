// server.stop: end the server and every pane's program.
import { z } from 'zod';
import { defineMethod } from '../define-method.js';

export default defineMethod({
  name: 'server.stop',
  description: 'Stop the server; every pane\'s program is ended and attached clients exit.',
  params: z.object({}).strict().optional(),
  result: z.object({ stopping: z.literal(true) }),
  handler: ({ session }) => {
    setImmediate(() => session.shutdown('stopped by server.stop'));
    return { stopping: true as const };
  },
});
