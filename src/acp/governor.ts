// What castellan decides about an ACP session: SessionStart/End at its boundaries, each tool call through the pipeline.
import { cleanName } from '../core/text.js';
import { appendAudit } from '../hooks/audit.js';
import { governPostToolUse, governPreToolUse, governSessionEnd, governSessionStart, type GovEvent, type GovernOptions, type PreToolUseResult } from '../hooks/pipeline.js';
import { strictestGate } from './gates.js';
import type { Presence } from './presence.js';
import { ACP_TOOLS, governedCall, type GovernedCall } from './tool-call.js';

/** The extension notification that carries castellan's governance events to the editor. */
export const EVENT_METHOD = '_castellan/event';

export interface GovernorHost {
  agentName: string;
  cwd: string;
  paneId?: string;
  presence: Presence;
  governOpts: GovernOptions;
  toEditor(method: string, params: unknown): Promise<void>;
  toAgent(method: string, params: unknown): Promise<void>;
}

interface CallState {
  sessionId: string;
  call: GovernedCall;
  decision: Promise<PreToolUseResult>;
  /** The tool it is judged as (the strictest gated one for an unknown kind). */
  tool: string;
  /** Said before the reason when the call was judged as another tool (an unknown kind). */
  note: string;
  /** The agent asked permission for it (so castellan, or the editor's user, had the say before it ran). */
  asked: boolean;
  /** The denial reached the agent (a rejected permission, or a cancelled turn). */
  enforced: boolean;
  /** The agent reported running it although it was not permitted (recorded once). */
  ranUnpermitted: boolean;
  posted: boolean;
}

type Update = Record<string, unknown>;
const obj = (v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
const text = (t: string) => ({ type: 'content', content: { type: 'text', text: t } });
/** A session's tool calls castellan remembers (a flood of calls must not grow memory without bound). */
const MAX_CALLS = 2000;

export class Governor {
  private readonly sessions = new Map<string, { cwd: string }>();
  private readonly calls = new Map<string, CallState>();
  /** Calls the editor has been shown a `tool_call` for: an update for any other id is "Tool call not found" in Zed. */
  private readonly announced = new Set<string>();

  constructor(private readonly h: GovernorHost) {}

  private agentId(sessionId: string): string {
    return `acp:${this.h.agentName}:${sessionId}`;
  }

  /** One id for one ACP session in every payload and event (SessionStart, PreToolUse, PostToolUse, SessionEnd). */
  private goalId(sessionId: string): string {
    return `acp:${sessionId}`;
  }

  private opts(sessionId: string | undefined): GovernOptions {
    return { ...this.h.governOpts, onEvent: (e) => void this.event(e, sessionId) };
  }

  cwdOf(sessionId: string): string {
    return this.sessions.get(sessionId)?.cwd ?? this.h.cwd;
  }

  /** A governance event: to the editor (extension notification) and the session log; the pipeline sends it to the socket and audit log. */
  async event(e: GovEvent, sessionId?: string): Promise<void> {
    this.h.presence.log(`${e.type}${e.decision ? ` ${String(e.decision)}` : ''}${e.tool ? ` ${String(e.tool)}` : ''}${e.reason ? `: ${String(e.reason)}` : ''}`);
    await this.h.toEditor(EVENT_METHOD, { ...(sessionId ? { sessionId } : {}), event: e }).catch(() => undefined);
  }

  /** An event castellan itself observed (not a pipeline decision): to the audit log and the server as the pipeline would, and to the editor. */
  async record(e: GovEvent, sessionId?: string): Promise<void> {
    const g = this.h.governOpts;
    const file = g.audit === undefined ? g.paths?.auditLog : g.audit;
    if (file) appendAudit(file, { ...e, ...(g.paths ? { session: g.paths.session } : {}), cwd: sessionId ? this.cwdOf(sessionId) : this.h.cwd });
    (g.sink ?? g.link ?? undefined)?.emit(e);
    await this.event(e, sessionId);
  }

  turn(params: unknown, phase: 'start' | 'end'): void {
    this.h.presence.report(phase === 'start' ? 'working' : 'idle');
    this.h.presence.log(`prompt turn ${phase === 'start' ? 'started' : 'ended'} (session ${str(obj(params).sessionId) ?? '?'})`);
  }

  /** SessionStart hooks for a new (or loaded) session; a refusal is the editor's error message. */
  async sessionStarted(_method: string, params: unknown, result: unknown): Promise<string | undefined> {
    const id = str(obj(result).sessionId) ?? str(obj(params).sessionId);
    if (!id) return undefined;
    const cwd = str(obj(params).cwd) ?? this.h.cwd;
    const r = await governSessionStart({ goalId: this.goalId(id), plugin: this.h.agentName, cwd, ...(this.h.paneId ? { paneId: this.h.paneId } : {}) }, this.opts(id));
    if (!r.ok) {
      await this.h.toAgent('session/cancel', { sessionId: id }).catch(() => undefined);
      return `castellan: a SessionStart hook refused this session: ${r.reason ?? 'no reason given'}`;
    }
    this.sessions.set(id, { cwd });
    return undefined;
  }

  async sessionEnded(params: unknown, status: string): Promise<void> {
    const id = str(obj(params).sessionId);
    const s = id ? this.sessions.get(id) : undefined;
    if (!id || !s) return;
    this.sessions.delete(id);
    await governSessionEnd({ goalId: this.goalId(id), plugin: this.h.agentName, status, cwd: s.cwd, ...(this.h.paneId ? { paneId: this.h.paneId } : {}) }, this.opts(id));
  }

  async endAll(status: string): Promise<void> {
    for (const id of [...this.sessions.keys()]) await this.sessionEnded({ sessionId: id }, status);
  }

  private key(sessionId: string, toolCallId: string): string {
    return `${sessionId}\u0000${toolCallId}`;
  }

  /** The call's state, governance started on first sight (a later sighting adds what the first lacked). */
  private callFor(sessionId: string, toolCall: unknown): CallState {
    const c = governedCall(toolCall);
    const key = this.key(sessionId, c.toolCallId);
    const known = c.toolCallId ? this.calls.get(key) : undefined;
    if (known) {
      // Qwen Code announces a call while it is still "preparing" it (rawInput {}; opencode and Kilo: {cwd}), and sends
      // the command only with the permission request or a later update: judged on the title alone, a hook or plan check that reads the command would never see it.
      // A sighting that brings the input the first lacked is judged again; a deny already given stands.
      if (!known.call.hasInput && c.hasInput) {
        const before = known.decision;
        known.call = c;
        known.tool = c.tool;
        known.decision = before.then((r) => (r.decision === 'deny' ? r : this.judge(known, c)));
      }
      return known;
    }
    const st: CallState = { sessionId, call: c, decision: undefined as unknown as Promise<PreToolUseResult>, tool: c.tool, note: '', asked: false, enforced: false, ranUnpermitted: false, posted: false };
    st.decision = this.judge(st, c);
    if (c.toolCallId) {
      this.calls.set(key, st);
      if (this.calls.size > MAX_CALLS) this.calls.delete(this.calls.keys().next().value as string);
    }
    return st;
  }

  /** Governance for one sighting of a call (PreToolUse: policy, hooks, plan verify). */
  private judge(st: CallState, c: GovernedCall): Promise<PreToolUseResult> {
    const cwd = this.cwdOf(st.sessionId);
    const opts = this.opts(st.sessionId);
    // A kind castellan cannot judge by its name could be any tool: it is judged as the strictest one the policy gates.
    const gate = c.unknownKind ? strictestGate(ACP_TOOLS, cwd, this.h.governOpts) : Promise.resolve(undefined);
    return gate.then((g) => {
      st.note = '';
      if (g) st.tool = g.tool;
      if (g) st.note = `a tool call of ${c.kind ? `unknown kind "${cleanName(c.kind, 40)}"` : 'no kind'} is judged as the strictest tool the policy gates (${g.tool}): `;
      const base = { agentId: this.agentId(st.sessionId), goalId: this.goalId(st.sessionId), cwd, toolInput: c.toolInput, ...(this.h.paneId ? { paneId: this.h.paneId } : {}) };
      return governPreToolUse({ ...base, tool: st.tool, argv: c.argv }, opts);
    });
  }

  private reasonOf(st: CallState, r: PreToolUseResult): string {
    return `${st.note}${r.reason ?? `denied by castellan (${r.source})`}`;
  }

  /** A `tool_call` for a call the editor has not been shown yet, so the update that follows names a call it knows. */
  private announce(st: CallState): Update[] {
    const key = this.key(st.sessionId, st.call.toolCallId);
    if (this.announced.has(key)) return [];
    this.announced.add(key);
    return [{ sessionUpdate: 'tool_call', toolCallId: st.call.toolCallId, ...st.call.shown, status: 'pending' }];
  }

  /** Tells the editor the call was refused, with castellan's reason (a failed tool call it can show). */
  private async refuse(st: CallState, r: PreToolUseResult): Promise<void> {
    const reason = this.reasonOf(st, r);
    this.h.presence.log(`denied ${st.call.title}: ${reason}`);
    const failed = { sessionUpdate: 'tool_call_update', toolCallId: st.call.toolCallId, status: 'failed', content: [text(`castellan denied ${cleanName(st.call.title, 500)}: ${reason}`)], _meta: { castellan: { decision: 'deny', source: r.source, reason } } };
    for (const update of [...this.announce(st), failed]) await this.h.toEditor('session/update', { sessionId: st.sessionId, update }).catch(() => undefined);
  }

  /** A permission request: castellan's denial answers the agent at once (reject); anything else goes to the editor. */
  async permission(params: unknown): Promise<{ outcome: { outcome: 'cancelled' } | { outcome: 'selected'; optionId: string } } | undefined> {
    const p = obj(params);
    const sessionId = str(p.sessionId) ?? '';
    const st = this.callFor(sessionId, p.toolCall);
    st.asked = true;
    const r = await st.decision;
    if (r.decision !== 'deny') return undefined;
    st.enforced = true;
    await this.refuse(st, r);
    const options = Array.isArray(p.options) ? p.options.map(obj) : [];
    const reject = options.find((x) => x.kind === 'reject_once') ?? options.find((x) => x.kind === 'reject_always');
    return str(reject?.optionId) ? { outcome: { outcome: 'selected', optionId: str(reject!.optionId)! } } : { outcome: { outcome: 'cancelled' } };
  }

  /**
   * A session update from the agent, as the editor is to see it. A tool call is governed when first seen (also when its
   * first sighting is an update); for a call castellan did not permit, every later word of the agent about it is shown
   * as failed with castellan's reason, so an agent's "completed" never reads as an allowed run, and a run that happened
   * anyway is said and recorded as such.
   */
  async relay(params: unknown): Promise<unknown[]> {
    const p = obj(params);
    const sessionId = str(p.sessionId) ?? '';
    const u = obj(p.update);
    if (u.sessionUpdate !== 'tool_call' && u.sessionUpdate !== 'tool_call_update') return [params];
    const id = str(u.toolCallId) ?? '';
    const status = str(u.status);
    const ran = status === 'in_progress' || status === 'completed';
    const known = id ? this.calls.get(this.key(sessionId, id)) : undefined;
    const st = known ?? (u.sessionUpdate === 'tool_call' || ran || status === 'failed' ? this.callFor(sessionId, u) : undefined);
    if (u.sessionUpdate === 'tool_call') this.announced.add(this.key(sessionId, id));
    if (!st || (!status && !st.enforced) || status === 'pending') return [params];
    const r = await st.decision;
    // A call the policy asks about must not run unasked either: the user was never asked.
    const notPermitted = r.decision === 'deny' || (r.decision === 'ask' && !st.asked);
    if (!notPermitted) return [params];
    const reason = r.decision === 'deny' ? this.reasonOf(st, r) : `${st.note}${r.reason ?? 'the permission policy asks first'}, and the agent did not ask`;
    let said = `castellan denied ${cleanName(st.call.title, 500)}: ${reason}`;
    if (ran) {
      said += st.asked
        ? `. The agent reports it ${status === 'completed' ? 'ran' : 'running'} although castellan refused it, so castellan cancelled the turn.`
        : `. The agent ran it without asking for permission (it reports "${status}"), so castellan cancelled the turn.`;
      if (!st.ranUnpermitted) {
        st.ranUnpermitted = true;
        const c = st.call;
        await this.record({ type: 'acp_unpermitted_run', decision: r.decision, source: r.source, reason, agent_status: status, asked: st.asked, argv: c.argv, tool: st.tool, title: c.title, agent_id: this.agentId(sessionId), goal_id: this.goalId(sessionId) }, sessionId);
      }
      if (!st.enforced) {
        st.enforced = true;
        await this.h.toAgent('session/cancel', { sessionId }).catch(() => undefined);
      }
      this.h.presence.log(said);
    }
    const content = Array.isArray(u.content) ? u.content : [];
    const rewritten = { ...u, status: 'failed', content: [text(said), ...content], _meta: { ...obj(u._meta), castellan: { decision: 'deny', source: r.source, reason, ...(status ? { agent_status: status } : {}) } } };
    const out = u.sessionUpdate === 'tool_call' ? [rewritten] : [...this.announce(st), rewritten];
    return out.map((update) => ({ ...p, update }));
  }

  /** After the editor has the update: a finished call that really ran (allowed, or run anyway) gets the PostToolUse hooks. */
  async after(params: unknown): Promise<void> {
    const p = obj(params);
    const sessionId = str(p.sessionId) ?? '';
    const u = obj(p.update);
    const id = str(u.toolCallId);
    const st = id ? this.calls.get(this.key(sessionId, id)) : undefined;
    const status = str(u.status);
    if (!st || st.posted || (status !== 'completed' && status !== 'failed')) return;
    const r = await st.decision;
    if (r.decision === 'deny' && !st.ranUnpermitted) return;
    st.posted = true;
    const base = { agentId: this.agentId(sessionId), goalId: this.goalId(sessionId), cwd: this.cwdOf(sessionId), ...(this.h.paneId ? { paneId: this.h.paneId } : {}) };
    await governPostToolUse({ ...base, tool: st.tool, argv: st.call.argv, success: status === 'completed' }, this.opts(sessionId));
  }
}
