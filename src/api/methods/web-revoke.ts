// web.revoke: ends every browser session of the web view and voids pairing URLs not used yet.
import { z } from 'zod';
import { ApiError } from '../errors.js';
import { defineMethod } from '../define-method.js';

export default defineMethod({
  name: 'web.revoke',
  description: 'Sign out every paired browser (their pages close at once) and void unused pairing URLs; returns how many sessions ended.',
  params: z.object({}).strict().optional(),
  result: z.object({ sessions: z.number() }),
  handler: ({ session }) => {
    if (!session.web) throw new ApiError('not_allowed', 'this server has no web view');
    return session.web.revoke();
  },
});
