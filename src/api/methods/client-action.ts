// client.action: an action from a key binding, acting on the client's own window and focused pane.
import { z } from 'zod';
import { actionSchema } from '../../core/actions.js';
import { defineMethod } from '../define-method.js';
import { ApiError } from '../protocol.js';
import { openReview } from '../../worktree/index.js';

export default defineMethod({
  name: 'client.action',
  description: 'Run an action (the same vocabulary as keys and the CLI) in the context of this attached client.',
  internal: true,
  params: z.object({ action: actionSchema }).strict(),
  result: z.record(z.string(), z.unknown()),
  handler: ({ session, conn }, p) => {
    if (!conn.clientId) throw new ApiError('not_attached', 'attach first');
    if (p.action.type === 'worktree.review') return openReview(session, conn.clientId, p.action.pane);
    const r = session.clientAction(conn.clientId, p.action);
    return r.result ?? {};
  },
});
