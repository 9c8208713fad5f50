// The bridge's fast governance path: ask the pane's server (hook.decide), which has the pipeline loaded, to judge a tool call.
// zod-free like the rest of the hot path; anything short of a clear answer returns undefined and the bridge decides itself.
import { resolve } from 'node:path';
import type { Paths } from '../platform/paths.js';
import { BridgeLink } from './bridge-link.js';
import { isPaneId } from '../platform/pane-id.js';

export const DECIDE_CONNECT_MS = 300;
/** The server decides in a few ms; past this the bridge stops waiting and decides as it would without a server. */
export const DECIDE_REPLY_MS = 1000;
/** Past this the call's argv goes to the local pipeline rather than through the socket (a 4 MiB line limit there). */
const MAX_ARGV_CHARS = 1024 * 1024;

export interface ServerDecision {
  decision: 'allow' | 'deny' | 'ask';
  source: string;
  reason?: string;
}

export interface DecideRequest {
  phase: 'pre' | 'post';
  tool: string;
  argv: readonly string[];
  cwd: string;
  toolInput: Record<string, unknown>;
  success?: boolean;
  agentId: string;
  paneId?: string;
  prompt: 'defer' | 'ui';
  env: NodeJS.ProcessEnv;
  paths: Pick<Paths, 'home' | 'trustFile' | 'auditLog' | 'session' | 'socket'>;
}

const DECISIONS = new Set(['allow', 'deny', 'ask']);

/** Only what plan verify reads; a Write's whole file never goes to the server. */
function planFields(t: Record<string, unknown>): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  if (t.workflow_plan !== undefined) out.workflow_plan = t.workflow_plan;
  if (t.tool_workflow !== undefined) out.tool_workflow = t.tool_workflow;
  if (typeof t.workflow_step === 'string') out.workflow_step = t.workflow_step;
  return Object.keys(out).length ? out : undefined;
}

/** hook.decide's params for a tool call (without its deadline), as the bridge and the server's hook.event both send them. */
export function decideParams(r: DecideRequest, pid: number) {
  const goal = r.env.CASTELLAN_GOAL_ID || undefined;
  const pane = isPaneId(r.paneId) ? r.paneId : undefined;
  const plan = planFields(r.toolInput);
  return {
    phase: r.phase,
    tool: r.tool,
    argv: r.argv,
    cwd: resolve(r.cwd),
    ...(plan ? { plan } : {}),
    ...(r.success !== undefined ? { success: r.success } : {}),
    ...(pane ? { pane_id: pane } : {}),
    ...(r.agentId ? { agent_id: r.agentId } : {}),
    ...(goal ? { goal_id: goal } : {}),
    prompt: r.prompt,
    home: r.paths.home,
    trust_file: r.paths.trustFile,
    audit_log: r.paths.auditLog,
    session: r.paths.session,
    pid,
  };
}

/** The server's decision, or undefined (no server, an old one, a slow one, a call it leaves to the bridge). Never throws. */
export async function askServerDecision(
  r: DecideRequest,
  o: { connectMs?: number; replyMs?: number; link?: BridgeLink; /** Epoch ms past which the server must not decide (the hook door's requester gives up then). */ deadlineAt?: number; /** The audited hook process (the door's requester), default this one. */ pid?: number; /** The server answered and left the call to the bridge: its why (for the debug log). */ onUndecided?: (why: string) => void } = {},
): Promise<ServerDecision | undefined> {
  const goal = r.env.CASTELLAN_GOAL_ID || undefined;
  // What the server could not take as the bridge has it is decided by the bridge, so both record the same thing.
  if (!r.paths.socket || r.argv.reduce((n, a) => n + a.length, 0) > MAX_ARGV_CHARS || r.agentId.length > 300 || (goal?.length ?? 0) > 300) return undefined;
  const params = decideParams(r, o.pid ?? process.pid);
  const replyMs = o.replyMs ?? DECIDE_REPLY_MS;
  // On the hook call's shared connection when it goes to this socket (the state report is on it already), else its own.
  const link = o.link?.socket === r.paths.socket ? o.link : new BridgeLink(r.paths.socket);
  try {
    // A server that reads the request after we gave up must not decide (and audit) it too: we decide it then.
    const a = await link.use(o.connectMs ?? DECIDE_CONNECT_MS, (api) =>
      api.request<Record<string, unknown>>('hook.decide', { ...params, deadline: Math.min(Date.now() + replyMs - 100, o.deadlineAt ?? Infinity) }, replyMs),
    );
    if (a?.decided === false && typeof a.why === 'string') o.onUndecided?.(a.why.slice(0, 200));
    if (a?.decided !== true || typeof a.decision !== 'string' || !DECISIONS.has(a.decision) || typeof a.source !== 'string') return undefined;
    return { decision: a.decision as ServerDecision['decision'], source: a.source, ...(typeof a.reason === 'string' ? { reason: a.reason } : {}) };
  } catch {
    return undefined;
  }
}
