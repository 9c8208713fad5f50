// web.pair: a one-time pairing URL for one browser (starting the web view first when it is not running).
import { z } from 'zod';
import { ApiError } from '../errors.js';
import { defineMethod } from '../define-method.js';
import { webError, webStartParams } from './web-start.js';

export default defineMethod({
  name: 'web.pair',
  description:
    'A one-time pairing URL (good for 10 minutes, for one browser): opening it trades its token for a session cookie. `read_only: true` pairs a browser that can look but not act. Starts the web view first if needed (same params as web.start).',
  params: webStartParams.optional(),
  result: z.object({ url: z.string(), expires: z.number(), read_only: z.boolean() }),
  handler: async ({ session }, p = {}) => {
    if (!session.web) throw new ApiError('not_allowed', 'this server has no web view');
    try {
      return await session.web.pair(p);
    } catch (e) {
      throw webError(e);
    }
  },
});
