// client.ssh_agent: an attached client names its terminal's SSH agent; the panes' SSH_AUTH_SOCK link points there.
import { z } from 'zod';
import { defineMethod } from '../define-method.js';
import { ApiError } from '../protocol.js';

export default defineMethod({
  name: 'client.ssh_agent',
  description:
    "An attached client's SSH_AUTH_SOCK. Every pane's SSH_AUTH_SOCK is a link beside the session's socket; it is pointed at this agent when the path is an absolute path to a live Unix socket of this user (anything else is refused and the link stays). So ssh from a pane uses the agent of the terminal the user attached from last, not the one the server was started from.",
  internal: true,
  params: z.object({ path: z.string().max(1024) }).strict(),
  result: z.object({ linked: z.boolean() }),
  handler: ({ session, conn }, p) => {
    if (!conn.clientId) throw new ApiError('not_allowed', 'only an attached client names its SSH agent');
    if (!session.sshAgent) throw new ApiError('unknown_method', 'this server does not link SSH agents');
    return { linked: session.sshAgent.retarget(p.path) };
  },
});
