// agent.prompt: send a prompt to a running agent through its UserPromptSubmit hooks (which may block or rewrite it), then type it.
import { z } from 'zod';
import { paneIdSchema } from '../../core/actions.js';
import { defineMethod } from '../define-method.js';
import { ApiError } from '../protocol.js';
import { agentsOf } from './agent-list.js';

export default defineMethod({
  name: 'agent.prompt',
  description:
    'Type a prompt into a running agent (by agent_id, or the agent in pane_id) after its UserPromptSubmit hooks: a block answers {sent: false, decision: "deny", reason}; a rewrite is typed instead of `text`; context waiting for the agent (PostSampling advice) goes with it (for Claude through its own UserPromptSubmit hook, else in front of the text).',
  params: z.object({ agent_id: z.string().min(1).max(200).optional(), pane_id: paneIdSchema.optional(), text: z.string().min(1).max(1_000_000) }).strict(),
  result: z.object({ sent: z.boolean(), agent_id: z.string(), pane_id: z.string(), decision: z.enum(['allow', 'deny']), reason: z.string().optional(), text: z.string().optional() }),
  handler: async ({ session }, p) => {
    if (!p.agent_id && !p.pane_id) throw new ApiError('invalid_params', 'agent.prompt: give agent_id or pane_id');
    const r = await agentsOf(session).prompt({ agentId: p.agent_id, paneId: p.pane_id, text: p.text });
    return r as { sent: boolean; agent_id: string; pane_id: string; decision: 'allow' | 'deny'; reason?: string; text?: string };
  },
});
