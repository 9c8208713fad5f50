// Governance through agents' own tool hooks: castellan's pipeline decides, the answer speaks the agent's protocol.
import { appendAudit } from '../hooks/audit.js';
import type { Paths } from '../platform/paths.js';
import type { BridgeLink } from './bridge-link.js';
import { askServerDecision, type DecideRequest } from './server-decide.js';
import { HARNESS_TABLES } from './tables.js';
import { AGENTS, type AgentName } from './types.js';
import { isPaneId } from '../platform/pane-id.js';

/**
 * Thrown in server-only mode (the hook door, src/hookdoor/) wherever the bridge would do more than pass on the server's
 * answer (the local pipeline, an agent's own hooks, a payload denial): the door then hands the call to the Node bridge.
 */
export class NeedsBridge extends Error {}

export interface HookAnswer {
  exitCode: number;
  stdout?: string;
  stderr?: string;
  /** Who judged a tool event: the server (hook.decide) or the pipeline in this process (the bridge log says so with CASTELLAN_HOOK_DEBUG=1). */
  by?: 'server' | 'bridge';
}

/** Which agent events are a tool call about to happen (pre: the first gate) or one that happened (post). */
export const TOOL_EVENTS: Record<AgentName, { pre: string; post: string }> = Object.fromEntries(
  AGENTS.map((a) => [a, { pre: HARNESS_TABLES[a].tools.pre[0]!.event, post: HARNESS_TABLES[a].tools.post }]),
) as Record<AgentName, { pre: string; post: string }>;

/** The agents' shell tools are castellan's `shell` tool (so one policy line governs them all). */
const SHELL_TOOLS = new Set(['bash', 'run_shell_command', 'shell', 'exec_command', 'local_shell']);

export function toolEventKind(agent: AgentName, event: string): 'pre' | 'post' | undefined {
  const t = HARNESS_TABLES[agent].tools;
  return t.pre.some((g) => g.event === event) ? 'pre' : event === t.post ? 'post' : undefined;
}

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
const obj = (v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/** The tool call in castellan's terms: policy tool name, the argv that is checked, and the args envelope. */
export function toolCallOf(agent: AgentName, payload: unknown): { tool: string; argv: string[]; toolInput: Record<string, unknown>; rawName: string } {
  const p = obj(payload);
  const f = HARNESS_TABLES[agent].tools;
  // The common spellings first (as before the tables named them), then the agent's own (Copilot's toolArgs).
  const rawName = str(p.tool_name) ?? str(p.toolName) ?? str(p[f.name]) ?? 'unknown';
  const toolInput = obj(p.tool_input ?? p.input ?? p.args ?? f.input.map((k) => p[k]).find((v) => v !== undefined));
  const lower = rawName.toLowerCase();
  if (SHELL_TOOLS.has(lower)) {
    const command = str(toolInput.command) ?? (Array.isArray(toolInput.command) ? (toolInput.command as unknown[]).map(String).join(' ') : '');
    return { tool: 'shell', argv: command ? ['/bin/sh', '-c', command] : [], toolInput, rawName };
  }
  // Other tools (Edit, Write, WebFetch, MCP tools...) are governed by their own name; their target path, if any, is the argv.
  const target = str(toolInput.file_path) ?? str(toolInput.path) ?? str(toolInput.url) ?? str(toolInput.pattern);
  return { tool: lower, argv: target ? [target] : [], toolInput, rawName };
}

/** Who a tool call is audited and judged as: the started agent's id, else the agent's session, else the agent. */
export function governedAgentId(agent: AgentName, env: { CASTELLAN_AGENT_ID?: string }, payload: unknown): string {
  const session = str(obj(payload)[HARNESS_TABLES[agent].tools.session ?? 'session_id']);
  return env.CASTELLAN_AGENT_ID ?? (session ? `${agent}:${session}` : agent);
}

/** The reason an agent is shown for a deny or an "ask": governance's own, else which tool and who decided. */
export function decisionReason(call: { rawName: string }, r: { decision: string; source: string; reason?: string }): string {
  return r.reason ?? `${call.rawName} ${r.decision === 'deny' ? 'denied' : 'needs approval'} by castellan (${r.source})`;
}

/** Whether a post-tool event's payload says the tool worked (what PostToolUse records). */
export function toolSucceeded(payload: unknown): boolean {
  const p = obj(payload);
  const resp = obj(p.tool_response ?? p.result);
  // Copilot: toolResult.resultType "success" | "failure" | ...
  const copilot = obj(p.toolResult).resultType;
  return !(resp.interrupted === true || resp.error || p.isError === true || p.is_error === true || (typeof copilot === 'string' && copilot !== 'success'));
}

/** Fills an answer template's `{decision}` and `{reason}` string values (key order kept: the bytes are the template's). */
function fill(v: unknown, decision: string, reason: string): unknown {
  if (v === '{decision}') return decision;
  if (v === '{reason}') return reason;
  if (Array.isArray(v)) return v.map((x) => fill(x, decision, reason));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fill(x, decision, reason)]));
  return v;
}

/** The gate (and its answer template) for a tool-gating event; an unknown event takes the agent's main gate. */
function gateOf(agent: AgentName, event?: string) {
  const pre = HARNESS_TABLES[agent].tools.pre;
  return pre.find((g) => g.event === event) ?? pre[0]!;
}

function answer(agent: AgentName, decision: 'allow' | 'deny' | 'ask', reason: string, extra?: string, event?: string): HookAnswer {
  if (decision === 'allow') return { exitCode: 0 };
  const why = [reason ? `castellan: ${reason}` : '', extra ?? ''].filter(Boolean).join('\n');
  const t = gateOf(agent, event).answer;
  return { exitCode: t.exitCode, ...(t.stdout ? { stdout: JSON.stringify(fill(t.stdout, decision, why)) } : {}), ...(t.stderr ? { stderr: why } : {}) };
}

/** A denial in the agent's own protocol (what a tool-gating event answers when castellan cannot decide). */
export function denyAnswer(agent: AgentName, reason: string, event?: string): HookAnswer {
  return answer(agent, 'deny', reason, undefined, event);
}

export interface UnreadableInput {
  agent: AgentName;
  event: string;
  /** Why the payload cannot be judged (hook-input.ts). */
  why: string;
  /** Payload bytes read before giving up. */
  bytes: number;
  env: NodeJS.ProcessEnv;
  cwd: string;
  paths: { auditLog: string; session: string; socket: string };
}

/**
 * A tool-gating event whose payload cannot be read whole or judged: denied (never evaluated as tool "unknown"),
 * audited like any governance decision, and sent to the server's subscribers when one answers within the emit budget.
 */
export async function denyUnreadable(o: UnreadableInput): Promise<HookAnswer> {
  const reason = `the hook payload could not be read (${o.why}); denied`;
  const pane = o.env.CASTELLAN_PANE_ID;
  const ev = {
    type: 'governance_decision',
    decision: 'deny',
    source: 'payload',
    permission: 'unread',
    argv: [],
    reason,
    payload_bytes: o.bytes,
    hook_event: `${o.agent} ${o.event}`,
    ...(isPaneId(pane) ? { pane } : {}),
    agent_id: o.env.CASTELLAN_AGENT_ID || o.agent,
  };
  appendAudit(o.paths.auditLog, { ...ev, session: o.paths.session, cwd: o.cwd });
  const { ServerLink } = await import('../hooks/emit.js');
  const link = new ServerLink(o.paths.socket);
  link.emit(ev);
  await link.flush();
  link.close();
  return answer(o.agent, 'deny', reason, undefined, o.event);
}

export interface GovernHookInput {
  agent: AgentName;
  event: string;
  payload: unknown;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** The server's socket (default: CASTELLAN_SOCKET); per-agent hooks are asked there. */
  socket?: string;
  /**
   * The bridge's paths: with them the server is asked to decide first (hook.decide), and the local pipeline is loaded
   * only when it cannot. Without them the call is judged here, as it always was.
   */
  paths?: Paths;
  /** Awaited before the local pipeline loads (its synchronous load must not eat the state report's deadlines). */
  beforeLocal?: () => Promise<unknown>;
  /** The hook call's connection to the server, shared with the state report (bridge-link.ts). */
  link?: BridgeLink;
  /** Only the server's answer: throw NeedsBridge instead of judging here or asking the agent's own hooks. */
  serverOnly?: boolean;
  /** Passed to hook.decide: epoch ms past which the server must not decide. */
  deadlineAt?: number;
  /** The audited hook process, default this one. */
  pid?: number;
}

/** The agent's SubagentStop hooks for this call; a server that cannot be asked denies (they may exist to forbid it). */
async function agentToolCheck(o: GovernHookInput, call: ReturnType<typeof toolCallOf>): Promise<{ decision: 'allow' | 'deny'; reason?: string; contexts: string[] }> {
  const { askAgentHook, AGENT_REPLY_MS } = await import('./agent-bridge.js');
  const socket = o.socket ?? o.env.CASTELLAN_SOCKET ?? '';
  try {
    return await askAgentHook({
      env: o.env,
      socket,
      hookType: 'SubagentStop',
      payload: { tool: call.tool, tool_name: call.rawName, argv: call.argv.map(String), tool_input: call.toolInput },
      timeoutMs: AGENT_REPLY_MS[o.agent],
    });
  } catch (e) {
    return { decision: 'deny', reason: `the per-agent hooks of ${o.env.CASTELLAN_AGENT_ID} could not be checked (${(e as Error).message})`, contexts: [] };
  }
}

/**
 * The governance pipeline (config, policy, hooks): most of the bridge's bytes. Its load is one synchronous stretch of
 * CPU in the bundled bridge (dist/hook/), so it waits for `beforeLocal` (the state report) first: under load that
 * stretch ate the report's 300 ms connect deadline (the report was lost as "not running").
 */
export const loadPipeline = () => import('../hooks/pipeline.js');

/** Runs castellan's pipeline for an agent's tool event; undefined when the event is not a tool event. */
export async function governToolHook(o: GovernHookInput): Promise<HookAnswer | undefined> {
  const kind = toolEventKind(o.agent, o.event);
  if (!kind) return undefined;
  const p = obj(o.payload);
  const call = toolCallOf(o.agent, o.payload);
  const cwd = str(p.cwd) ?? o.cwd;
  const agentId = governedAgentId(o.agent, o.env, o.payload);
  const paneId = o.env.CASTELLAN_PANE_ID;
  // Whether castellan's "prompt" becomes the agent's own "ask" or a question in castellan's UI: the agent's table says.
  const prompt = HARNESS_TABLES[o.agent].tools.prompt;
  /** Why the server left the call to the bridge, when it said (the door's debug line tells it). */
  let undecided = '';
  const remote = (req: Omit<DecideRequest, 'tool' | 'argv' | 'cwd' | 'toolInput' | 'agentId' | 'paneId' | 'prompt' | 'env' | 'paths'>) =>
    o.paths
      ? askServerDecision({ ...req, tool: call.tool, argv: call.argv, cwd, toolInput: call.toolInput, agentId, paneId, prompt, env: o.env, paths: { ...o.paths, socket: o.socket ?? o.paths.socket } }, { link: o.link, onUndecided: (why) => void (undecided = why), ...(o.deadlineAt !== undefined ? { deadlineAt: o.deadlineAt } : {}), ...(o.pid !== undefined ? { pid: o.pid } : {}) })
      : Promise.resolve(undefined);
  const local = async () => {
    if (o.serverOnly) throw new NeedsBridge(`the server did not decide this call${undecided ? `: ${undecided}` : ''}`);
    await o.beforeLocal?.();
    return loadPipeline();
  };
  if (kind === 'pre') {
    // Two gates for one call (Qwen): an allow at the first is handed on, and the second does not judge (nor audit) it again.
    const gates = HARNESS_TABLES[o.agent].tools.pre;
    const gate = gates.find((g) => g.event === o.event);
    const handoff =
      gates.some((g) => g.handsOn) && o.paths && isPaneId(paneId)
        ? (await import('./handoff.js')).handoffOf({ stateDir: o.paths.stateDir, socket: o.socket ?? o.paths.socket, pane: paneId, agent: o.agent, session: agentId, tool: call.rawName, toolInput: call.toolInput })
        : undefined;
    if (handoff && !gate?.handsOn && (await import('./handoff.js')).takeHandoff(handoff)) return { exitCode: 0 };
    const served = await remote({ phase: 'pre' });
    const by = served ? 'server' : 'bridge';
    // Loaded before the per-agent check connects: the pipeline's synchronous load would eat that connect's deadline.
    const pipeline = served ? undefined : await local();
    // An agent castellan started also has its own SubagentStop hooks (asked of the server, alongside governance).
    const own = o.env.CASTELLAN_AGENT_ID ? agentToolCheck(o, call) : undefined;
    const r = served ?? (await pipeline!.governPreToolUse({ tool: call.tool, argv: call.argv, agentId, paneId, cwd, toolInput: call.toolInput }, { env: o.env, prompt }));
    const a = own ? await own : undefined;
    const govWhy = decisionReason(call, r);
    if (a?.decision === 'deny') {
      // Either one denying denies; both reasons are kept (governance first, then the agent's own as a directive).
      const ownWhy = a.contexts.join('\n') || `castellan: ${a.reason ?? 'denied by the agent\'s SubagentStop hooks'}`;
      return { ...answer(o.agent, 'deny', r.decision === 'deny' ? govWhy : '', ownWhy, o.event), by };
    }
    if (handoff && gate?.handsOn && r.decision === 'allow') (await import('./handoff.js')).handOn(handoff);
    return { ...answer(o.agent, r.decision, govWhy, undefined, o.event), by };
  }
  const success = toolSucceeded(o.payload);
  if (await remote({ phase: 'post', success })) return { exitCode: 0, by: 'server' };
  await (await local()).governPostToolUse({ tool: call.tool, argv: call.argv, success, agentId, paneId, cwd }, { env: o.env });
  return { exitCode: 0, by: 'bridge' };
}
