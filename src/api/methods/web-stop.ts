// web.stop: stops serving the web view (pages close; browser sessions end with it).
import { z } from 'zod';
import { ApiError } from '../errors.js';
import { defineMethod } from '../define-method.js';

export default defineMethod({
  name: 'web.stop',
  description: 'Stop the web view: its port closes and every page with it. `stopped` is false when it was not running.',
  params: z.object({}).strict().optional(),
  result: z.object({ stopped: z.boolean() }),
  handler: async ({ session }) => {
    if (!session.web) throw new ApiError('not_allowed', 'this server has no web view');
    return session.web.stop();
  },
});
