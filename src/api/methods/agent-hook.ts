// agent.hook: the bridge asks for one agent's per-agent hooks (start context, prompt check, tool check, response advice).
import { z } from 'zod';
import { paneIdSchema } from '../../core/actions.js';
import { defineMethod } from '../define-method.js';
import { agentsOf } from './agent-list.js';

/** Kept equal to AGENT_HOOK_INPUT_MAX in integrations/agent-bridge.ts (a test holds it), which refuses bigger ones before sending. */
export const TOOL_INPUT_MAX = 3 * 1024 * 1024;

/** Serialised length, or Infinity for what cannot be serialised (nested too deep for the stack). */
function jsonLength(v: unknown): number {
  try {
    return JSON.stringify(v).length;
  } catch {
    return Infinity;
  }
}

export const agentHookResultSchema = z.object({
  registered: z.boolean(),
  decision: z.enum(['allow', 'deny']),
  reason: z.string().optional(),
  contexts: z.array(z.string()),
  prompt: z.string().optional(),
});

export default defineMethod({
  name: 'agent.hook',
  description: [
    'Run a running agent\'s own hooks. hook_type: SessionStart (returns the first message: instructions + SubagentStart output),',
    'UserPromptSubmit (payload.prompt; may deny, rewrite it as `prompt`, or add contexts), SubagentStop (before a tool call:',
    'payload.tool / tool_name / argv / tool_input; may deny with a reason), PostSampling (payload.message; advice is kept for the',
    'next prompt, the reply does not wait for it). An agent_id that is not running (or runs in another pane than pane_id) gets',
    '{registered: false, decision: "allow", contexts: []}. Contexts are tagged <ambient|advisory|directive source=...>.',
  ].join(' '),
  params: z
    .object({
      agent_id: z.string().min(1).max(200),
      hook_type: z.enum(['SessionStart', 'SubagentStart', 'UserPromptSubmit', 'SubagentStop', 'PostSampling']),
      payload: z
        .object({
          prompt: z.string().max(1_000_000).optional(),
          tool: z.string().max(200).optional(),
          tool_name: z.string().max(200).optional(),
          argv: z.array(z.string().max(100_000)).max(1000).optional(),
          tool_input: z
            .record(z.string(), z.unknown())
            .refine((v) => jsonLength(v) <= TOOL_INPUT_MAX, `tool_input is larger than ${TOOL_INPUT_MAX} characters as JSON`)
            .optional(),
          message: z.string().max(1_000_000).optional(),
        })
        .default({}),
      pane_id: paneIdSchema.optional(),
    })
    .strict(),
  result: agentHookResultSchema,
  handler: async ({ session }, p) => {
    // SubagentStart runs once, when the agent starts; asking for it again returns the first message like SessionStart.
    const hookType = p.hook_type === 'SubagentStart' ? 'SessionStart' : p.hook_type;
    const r = await agentsOf(session).hook({ agentId: p.agent_id, hookType, payload: p.payload, paneId: p.pane_id });
    return r as z.infer<typeof agentHookResultSchema>;
  },
});
