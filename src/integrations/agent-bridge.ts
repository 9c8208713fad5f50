// The bridge's per-agent part: in a pane started by `castellan agent start` (CASTELLAN_AGENT_ID), ask the server for that
// agent's own hooks and answer in the agent's protocol. Loaded only when the pane carries an agent id: dormant otherwise.
import { SocketLink } from '../hooks/socket-link.js';
import { HARNESS_TABLES } from './tables.js';
import type { AgentName } from './types.js';

import type { AgentHookReply } from '../hooks/agent-hooks.js';
import { isPaneId } from '../platform/pane-id.js';

export interface AgentAnswer {
  exitCode: number;
  stdout?: string;
  stderr?: string;
}

const CONNECT_MS = 300;
/** Under each agent's own hook timeout (Claude and Codex 10 s, Gemini 5 s as castellan installs them). */
export const AGENT_REPLY_MS: Record<AgentName, number> = { claude: 9000, codex: 9000, gemini: 4000, pi: 9000, copilot: 9000, qwen: 9000, opencode: 9000, kilo: 9000 };
const AGENT_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

const obj = (v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

/** The pane's castellan agent id, when it has a valid one. */
export function agentIdOf(env: NodeJS.ProcessEnv): string | undefined {
  const id = env.CASTELLAN_AGENT_ID;
  return id && AGENT_ID.test(id) ? id : undefined;
}

/**
 * The most tool_input castellan sends to an agent's own hooks, as agent.hook (api/methods/agent-hook.ts) accepts it.
 * Under the socket's 4 MiB line limit (api/protocol.ts MAX_LINE_BYTES, not imported: it brings zod), which the server
 * answers with an error carrying no id: a request over it would only time out.
 */
export const AGENT_HOOK_INPUT_MAX = 3 * 1024 * 1024;
const LINE_MAX = 4 * 1024 * 1024 - 1024;

/** The reply deadline: the agent's own (AGENT_REPLY_MS), shortened by CASTELLAN_HOOK_REPLY_MS (tests). */
function replyDeadline(env: NodeJS.ProcessEnv, ms: number): number {
  const v = Number(env.CASTELLAN_HOOK_REPLY_MS);
  return Number.isInteger(v) && v > 0 ? Math.min(v, ms) : ms;
}

/** An agent.hook reply, or a throw: a server answering anything else must not read as "allow". */
function hookReply(r: unknown): AgentHookReply {
  const x = obj(r);
  if (typeof x.registered !== 'boolean' || (x.decision !== 'allow' && x.decision !== 'deny') || !Array.isArray(x.contexts)) {
    throw new Error(`the server's agent.hook reply is not one (${JSON.stringify(r)?.slice(0, 80)})`);
  }
  return { registered: x.registered, decision: x.decision, ...(typeof x.reason === 'string' ? { reason: x.reason } : {}), contexts: x.contexts.map(String), ...(typeof x.prompt === 'string' ? { prompt: x.prompt } : {}) };
}

/** One agent.hook request to the pane's server. Throws when the server cannot be asked or answers nonsense. */
export async function askAgentHook(o: { env: NodeJS.ProcessEnv; socket: string; hookType: string; payload?: Record<string, unknown>; timeoutMs: number }): Promise<AgentHookReply> {
  const agentId = agentIdOf(o.env);
  if (!agentId) return { registered: false, decision: 'allow', contexts: [] };
  const pane = o.env.CASTELLAN_PANE_ID;
  const params = { agent_id: agentId, hook_type: o.hookType, payload: o.payload ?? {}, ...(isPaneId(pane) ? { pane_id: pane } : {}) };
  // Refused here, at once and with the reason, rather than by the server after the agent waited for a timeout.
  const input = o.payload?.tool_input === undefined ? 0 : JSON.stringify(o.payload.tool_input).length;
  if (input > AGENT_HOOK_INPUT_MAX) throw new Error(`the tool input (${input} characters) is larger than the ${AGENT_HOOK_INPUT_MAX} the agent's own hooks accept`);
  if (JSON.stringify(params).length > LINE_MAX) throw new Error(`the agent.hook request is larger than the server's ${LINE_MAX + 1024}-byte line limit`);
  const link = await SocketLink.connect(o.socket, CONNECT_MS);
  try {
    return hookReply(await link.request('agent.hook', params, replyDeadline(o.env, o.timeoutMs)));
  } finally {
    link.close();
  }
}

/** The model's last response in a Stop-like payload (Claude/Codex last_assistant_message, Gemini prompt_response, pi messages). */
export function responseText(payload: unknown): string {
  const p = obj(payload);
  const direct = str(p.last_assistant_message) ?? str(p['last-assistant-message']) ?? str(p.prompt_response);
  if (direct !== undefined) return direct;
  const msgs = Array.isArray(p.messages) ? p.messages : [];
  for (let i = msgs.length - 1; i >= 0; i--) {
    const m = obj(msgs[i]);
    if (m.role !== undefined && m.role !== 'assistant') continue;
    if (typeof m.content === 'string') return m.content;
    if (Array.isArray(m.content)) return m.content.map((c) => str(obj(c).text) ?? '').join('');
  }
  return '';
}

/** Which per-agent stage an agent event is (tool events are governed in govern.ts). */
export function agentStage(agent: AgentName, event: string): 'SessionStart' | 'UserPromptSubmit' | 'PostSampling' | undefined {
  const row = HARNESS_TABLES[agent].rows.find((r) => r.event === event);
  if (!row) return undefined;
  if (row.stage === 'SessionStart') return 'SessionStart';
  if (row.stage === 'UserPromptSubmit') return 'UserPromptSubmit';
  // Stop-stage rows that are a model's answer (not Codex notify, which repeats Stop, nor StopFailure, which has none).
  if (row.stage === 'Stop' && event !== 'notify' && event !== 'StopFailure') return 'PostSampling';
  return undefined;
}

/**
 * Answers a non-tool event for an agent castellan started. SessionStart (Claude only): the first message as
 * additionalContext. UserPromptSubmit (Claude, Codex, Gemini): block, or add context. Stop-like events: PostSampling,
 * no answer. pi's prompt events cannot be answered (its extension does not wait), so prompts for pi go through agent.prompt.
 */
export async function agentEventAnswer(o: { agent: AgentName; event: string; payload: unknown; env: NodeJS.ProcessEnv; socket: string; log(line: string): void }): Promise<AgentAnswer | undefined> {
  if (!agentIdOf(o.env)) return undefined;
  const stage = agentStage(o.agent, o.event);
  if (!stage) return undefined;
  const p = obj(o.payload);
  // Claude reports its subagents' events with agent_id: they are not a new session nor the user's prompt.
  if (stage !== 'PostSampling' && str(p.agent_id)) return undefined;
  const timeoutMs = AGENT_REPLY_MS[o.agent];
  try {
    if (stage === 'SessionStart') {
      if (o.agent !== 'claude') return undefined;
      const r = await askAgentHook({ env: o.env, socket: o.socket, hookType: 'SessionStart', timeoutMs });
      if (!r.contexts.length) return undefined;
      return { exitCode: 0, stdout: JSON.stringify({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: r.contexts.join('\n\n') } }) };
    }
    if (stage === 'UserPromptSubmit') {
      if (!HARNESS_TABLES[o.agent].promptAnswered) return undefined;
      const prompt = str(p.prompt) ?? '';
      const r = await askAgentHook({ env: o.env, socket: o.socket, hookType: 'UserPromptSubmit', payload: { prompt }, timeoutMs });
      const reason = `castellan: ${r.reason ?? 'blocked by a UserPromptSubmit hook'}`;
      if (r.decision === 'deny') return { exitCode: 0, stdout: JSON.stringify(o.agent === 'gemini' ? { decision: 'deny', reason } : { decision: 'block', reason }) };
      if (!r.contexts.length) return undefined;
      const hookEventName = o.agent === 'gemini' ? 'BeforeAgent' : 'UserPromptSubmit';
      return { exitCode: 0, stdout: JSON.stringify({ hookSpecificOutput: { hookEventName, additionalContext: r.contexts.join('\n\n') } }) };
    }
    // The answer does not wait for PostSampling hooks: the server keeps their advice for the next prompt.
    await askAgentHook({ env: o.env, socket: o.socket, hookType: 'PostSampling', payload: { message: responseText(o.payload).slice(0, 200_000) }, timeoutMs: Math.min(timeoutMs, 2000) });
    return undefined;
  } catch (e) {
    // Context and advice are best effort: the agent goes on without them (and the bridge log says why).
    o.log(`agent hooks ${o.agent} ${o.event}: ${(e as Error).message}`);
    return undefined;
  }
}
