// What castellan decides about an ACP session: SessionStart/End at its boundaries, each tool call through the pipeline.
import { governPostToolUse, governPreToolUse, governSessionEnd, governSessionStart, type GovEvent, type GovernOptions, type PreToolUseResult } from '../hooks/pipeline.js';
import type { Presence } from './presence.js';
import { governedCall, type GovernedCall } from './tool-call.js';

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
  /** The denial reached the agent (a rejected permission, or a cancelled turn). */
  enforced: boolean;
  posted: boolean;
}

const obj = (v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
/** A session's tool calls castellan remembers (a flood of calls must not grow memory without bound). */
const MAX_CALLS = 2000;

export class Governor {
  private readonly sessions = new Map<string, { cwd: string }>();
  private readonly calls = new Map<string, CallState>();

  constructor(private readonly h: GovernorHost) {}

  private agentId(sessionId: string): string {
    return `acp:${this.h.agentName}:${sessionId}`;
  }

  private opts(sessionId: string | undefined): GovernOptions {
    return { ...this.h.governOpts, onEvent: (e) => void this.event(e, sessionId) };
  }

  /** A governance event: to the editor (extension notification) and the session log; the pipeline sends it to the socket and audit log. */
  async event(e: GovEvent, sessionId?: string): Promise<void> {
    this.h.presence.log(`${e.type}${e.decision ? ` ${String(e.decision)}` : ''}${e.tool ? ` ${String(e.tool)}` : ''}${e.reason ? `: ${String(e.reason)}` : ''}`);
    await this.h.toEditor(EVENT_METHOD, { ...(sessionId ? { sessionId } : {}), event: e }).catch(() => undefined);
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
    const r = await governSessionStart({ goalId: `acp:${id}`, plugin: this.h.agentName, cwd, ...(this.h.paneId ? { paneId: this.h.paneId } : {}) }, this.opts(id));
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
    await governSessionEnd({ goalId: `acp:${id}`, plugin: this.h.agentName, status, cwd: s.cwd, ...(this.h.paneId ? { paneId: this.h.paneId } : {}) }, this.opts(id));
  }

  async endAll(status: string): Promise<void> {
    for (const id of [...this.sessions.keys()]) await this.sessionEnded({ sessionId: id }, status);
  }

  /** The call's state, governance started on first sight (a later sighting adds what the first lacked). */
  private callFor(sessionId: string, toolCall: unknown): CallState {
    const c = governedCall(toolCall);
    const key = `${sessionId}\u0000${c.toolCallId}`;
    const known = c.toolCallId ? this.calls.get(key) : undefined;
    if (known) return known;
    const cwd = this.sessions.get(sessionId)?.cwd ?? this.h.cwd;
    const decision = governPreToolUse(
      { tool: c.tool, argv: c.argv, agentId: this.agentId(sessionId), cwd, toolInput: c.toolInput, ...(this.h.paneId ? { paneId: this.h.paneId } : {}) },
      this.opts(sessionId),
    );
    const st: CallState = { sessionId, call: c, decision, enforced: false, posted: false };
    if (c.toolCallId) {
      this.calls.set(key, st);
      if (this.calls.size > MAX_CALLS) this.calls.delete(this.calls.keys().next().value as string);
    }
    return st;
  }

  /** Tells the editor the call was refused, with castellan's reason (a failed tool call it can show). */
  private async refuse(st: CallState, r: PreToolUseResult, extra = ''): Promise<void> {
    const reason = r.reason ?? `denied by castellan (${r.source})`;
    this.h.presence.log(`denied ${st.call.title}: ${reason}`);
    await this.h
      .toEditor('session/update', {
        sessionId: st.sessionId,
        update: {
          sessionUpdate: 'tool_call_update',
          toolCallId: st.call.toolCallId,
          status: 'failed',
          content: [{ type: 'content', content: { type: 'text', text: `castellan denied ${st.call.title}: ${reason}${extra}` } }],
          _meta: { castellan: { decision: 'deny', source: r.source, reason } },
        },
      })
      .catch(() => undefined);
  }

  /** A permission request: castellan's denial answers the agent at once (reject); anything else goes to the editor. */
  async permission(params: unknown): Promise<{ outcome: { outcome: 'cancelled' } | { outcome: 'selected'; optionId: string } } | undefined> {
    const p = obj(params);
    const sessionId = str(p.sessionId) ?? '';
    const st = this.callFor(sessionId, p.toolCall);
    const r = await st.decision;
    if (r.decision !== 'deny') return undefined;
    st.enforced = true;
    await this.refuse(st, r);
    const options = Array.isArray(p.options) ? p.options.map(obj) : [];
    const reject = options.find((x) => x.kind === 'reject_once') ?? options.find((x) => x.kind === 'reject_always');
    return str(reject?.optionId) ? { outcome: { outcome: 'selected', optionId: str(reject!.optionId)! } } : { outcome: { outcome: 'cancelled' } };
  }

  /** A session update from the agent: tool calls are governed when first seen; finished ones get PostToolUse. */
  async update(params: unknown): Promise<void> {
    const p = obj(params);
    const sessionId = str(p.sessionId) ?? '';
    const u = obj(p.update);
    if (u.sessionUpdate !== 'tool_call' && u.sessionUpdate !== 'tool_call_update') return;
    const id = str(u.toolCallId);
    const st = u.sessionUpdate === 'tool_call' ? this.callFor(sessionId, u) : id ? this.calls.get(`${sessionId}\u0000${id}`) : undefined;
    const status = str(u.status);
    if (!st || !status || status === 'pending') return;
    const r = await st.decision;
    if (r.decision === 'deny') {
      if (st.enforced) return;
      // The agent runs this tool without asking: the only way left to stop it is to cancel the turn.
      st.enforced = true;
      await this.h.toAgent('session/cancel', { sessionId }).catch(() => undefined);
      await this.refuse(st, r, ' (the agent ran it without asking for permission, so castellan cancelled the turn)');
      return;
    }
    if ((status === 'completed' || status === 'failed') && !st.posted) {
      st.posted = true;
      const cwd = this.sessions.get(sessionId)?.cwd ?? this.h.cwd;
      await governPostToolUse({ tool: st.call.tool, argv: st.call.argv, success: status === 'completed', agentId: this.agentId(sessionId), cwd, ...(this.h.paneId ? { paneId: this.h.paneId } : {}) }, this.opts(sessionId));
    }
  }
}
