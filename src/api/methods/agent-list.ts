// agent.list: the agent definitions visible from a directory (project and user), whether each may start, and the running agents.
import { z } from 'zod';
import { agentSummary, type CommandSource } from '../../config/agents.js';
import { paneIdSchema } from '../../core/actions.js';
import type { SessionApi } from '../context.js';
import { defineMethod } from '../define-method.js';
import { ApiError } from '../protocol.js';

/** The session's agents, or a clear error from a session without them. */
export function agentsOf(session: SessionApi): NonNullable<SessionApi['agents']> {
  if (!session.agents) throw new ApiError('internal_error', 'this server does not run agents');
  return session.agents;
}

const hookCounts = z.record(z.string(), z.number());

export const listedAgentSchema = z.object({
  name: z.string(),
  description: z.string(),
  command: z.string(),
  /** Where the program came from: `command`, `agent`, `default` ([agents] default), `path` (first agent on PATH), `none`. */
  command_from: z.enum(['command', 'agent', 'default', 'path', 'none']),
  kind: z.string(),
  source: z.enum(['project', 'user']),
  file: z.string(),
  trust: z.enum(['trusted', 'untrusted', 'changed', 'user']),
  startable: z.boolean(),
  reason: z.string().optional(),
  hooks: hookCounts,
  hooks_valid: z.boolean(),
});

export default defineMethod({
  name: 'agent.list',
  description:
    'Agent definitions from .castellan/agents/*.md (project, found from `cwd` or the pane\'s directory; startable only when trusted) and ~/.castellan/agents/*.md (user), with diagnostics, plus the agents running now.',
  params: z.object({ cwd: z.string().optional(), pane_id: paneIdSchema.optional() }).strict().default({}),
  result: z.object({
    agents: z.array(listedAgentSchema),
    diagnostics: z.array(z.object({ severity: z.string(), file: z.string(), line: z.number().optional(), path: z.string().optional(), message: z.string() })),
    running: z.array(z.object({ agent_id: z.string(), agent_type: z.string(), pane_id: z.string().nullable(), kind: z.string(), started_at: z.number() })),
  }),
  handler: ({ session }, p) => {
    const r = agentsOf(session).list({ cwd: p.cwd, paneId: p.pane_id }) as {
      agents: Array<{ name: string; description: string; command: string; commandFrom: CommandSource; kind: string; source: 'project' | 'user'; file: string; trust: 'trusted' | 'untrusted' | 'changed' | 'user'; startable: boolean; reason?: string; hooks: Record<string, unknown[] | undefined>; hooksValid: boolean }>;
      diagnostics: Array<{ severity: string; file: string; line?: number; path?: string; message: string }>;
      running: Array<{ agent_id: string; agent_type: string; pane_id: string | null; kind: string; started_at: number }>;
    };
    return {
      agents: r.agents.map(agentSummary),
      diagnostics: r.diagnostics,
      running: r.running,
    };
  },
});
