// Keeps an ACP agent out of modes that run tools without asking while castellan's policy gates those tools.
import type { GovEvent, GovernOptions } from '../hooks/pipeline.js';
import { cleanName } from '../core/text.js';
import { strictestGate } from './gates.js';
import { ACP_TOOLS, classifyMode } from './modes.js';

export interface ModeGuardHost {
  governOpts: GovernOptions;
  cwdOf(sessionId: string): string;
  /** A request to the agent (session/set_mode). */
  requestAgent(method: string, params: unknown): Promise<unknown>;
  notifyAgent(method: string, params: unknown): Promise<void>;
  toEditor(method: string, params: unknown): Promise<void>;
  record(e: GovEvent, sessionId?: string): Promise<void>;
  log(line: string): void;
}

interface SessionModes {
  modes: Map<string, { name?: string; description?: string }>;
  current?: string;
  /** Session config options of category "mode" (the newer ACP way to pick a mode). */
  modeOptions: Set<string>;
}

const obj = (v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
const arr = (v: unknown) => (Array.isArray(v) ? v.map(obj) : []);

export class ModeGuard {
  private readonly sessions = new Map<string, SessionModes>();

  constructor(private readonly h: ModeGuardHost) {}

  /** Why castellan will not let the session run in `modeId`, or undefined when the mode asks for every tool the policy gates. */
  async refusal(sessionId: string, modeId: string): Promise<string | undefined> {
    const m = this.sessions.get(sessionId)?.modes.get(modeId);
    const v = classifyMode(modeId, m?.name, m?.description);
    if (!v.skips.length) return undefined;
    const gate = await strictestGate(v.skips, this.h.cwdOf(sessionId), this.h.governOpts);
    if (!gate) return undefined;
    const what = v.unknown
      ? 'castellan does not know this mode, so it counts as one that runs tools without asking'
      : `it runs ${v.skips === ACP_TOOLS ? 'tools' : `${v.skips.join('/')} tools`} without asking for permission`;
    return `castellan refused mode "${cleanName(modeId, 80)}": ${what}, and castellan's policy gates ${gate.tool} (${gate.reason})`;
  }

  /** A mode that asks for everything, to fall back to: the session's last such mode, else the agent's first one. */
  private fallback(sessionId: string): string | undefined {
    const s = this.sessions.get(sessionId);
    if (!s) return undefined;
    if (s.current && !classifyMode(s.current, s.modes.get(s.current)?.name, s.modes.get(s.current)?.description).skips.length) return s.current;
    for (const [id, m] of s.modes) if (!classifyMode(id, m.name, m.description).skips.length) return id;
    return undefined;
  }

  private async say(sessionId: string, message: string): Promise<void> {
    this.h.log(message);
    const update = { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `${message}\n` } };
    await this.h.toEditor('session/update', { sessionId, update }).catch(() => undefined);
  }

  /** The editor learns which mode is really in force (its picker shows the one it asked for otherwise). */
  private async showMode(sessionId: string): Promise<void> {
    const current = this.sessions.get(sessionId)?.current;
    if (current) await this.h.toEditor('session/update', { sessionId, update: { sessionUpdate: 'current_mode_update', currentModeId: current } }).catch(() => undefined);
  }

  /** An editor's request that would pick a mode: the refusal (the editor's error message) or undefined to relay it. */
  async check(method: string, params: unknown): Promise<string | undefined> {
    const p = obj(params);
    const sessionId = str(p.sessionId) ?? '';
    // A value that is not a string is still checked (as its JSON: unknown, so refused while a tool is gated).
    const asId = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v) ?? 'undefined');
    let modeId: string | undefined;
    if (method === 'session/set_mode') modeId = asId(p.modeId);
    else if (method === 'session/set_config_option') {
      const id = str(p.configId) ?? '';
      const modeLike = this.sessions.get(sessionId)?.modeOptions.has(id) || /^mode$|[_-]mode$|approv|permission/i.test(id);
      // A switch (`auto_approve: true`, `yolo: true`) is judged by its name and value together.
      if (typeof p.value === 'boolean') {
        const v = classifyMode(id);
        const offSwitch = !p.value && v.skips.length && !v.unknown; // turning `auto_approve` off asks more, not less
        if (!offSwitch && (modeLike || (p.value && v.skips.length && !v.unknown))) modeId = `${id}=${String(p.value)}`;
      } else if (modeLike) modeId = asId(p.value);
    }
    if (modeId === undefined) return undefined;
    const why = await this.refusal(sessionId, modeId);
    if (!why) return undefined;
    await this.h.record({ type: 'acp_mode_refused', mode: modeId, reason: why, via: method }, sessionId);
    await this.say(sessionId, why);
    await this.showMode(sessionId);
    return why;
  }

  /** The agent accepted the editor's mode change. */
  changed(method: string, params: unknown): void {
    const p = obj(params);
    const s = this.sessions.get(str(p.sessionId) ?? '');
    const id = method === 'session/set_mode' ? str(p.modeId) : undefined;
    if (s && id) s.current = id;
  }

  /**
   * A session the agent opened (session/new, load, resume): learn its modes; if it starts in a refused mode (its own
   * settings or flags), switch it to one that asks and rewrite the answer. Returns the editor's error when that fails.
   */
  async opened(sessionId: string, result: unknown): Promise<string | undefined> {
    const modes = obj(obj(result).modes);
    const s: SessionModes = { modes: new Map(), modeOptions: new Set() };
    for (const m of arr(modes.availableModes)) if (str(m.id)) s.modes.set(str(m.id)!, { name: str(m.name), description: str(m.description) });
    for (const c of arr(obj(result).configOptions)) if (c.category === 'mode' && str(c.id)) s.modeOptions.add(str(c.id)!);
    s.current = str(modes.currentModeId);
    this.sessions.set(sessionId, s);
    if (!s.current) return undefined;
    const why = await this.refusal(sessionId, s.current);
    if (!why) return undefined;
    const target = this.fallback(sessionId);
    const from = s.current;
    try {
      if (!target) throw new Error('the agent offers no mode that asks for permission');
      await this.h.requestAgent('session/set_mode', { sessionId, modeId: target });
    } catch (e) {
      await this.h.record({ type: 'acp_mode_refused', mode: from, reason: why, via: 'session start' }, sessionId);
      return `${why}; the session starts in it and castellan could not switch it to a mode that asks: ${(e as Error).message}`;
    }
    s.current = target;
    (modes as { currentModeId?: string }).currentModeId = target;
    await this.h.record({ type: 'acp_mode_changed', from, to: target, reason: why }, sessionId);
    this.h.log(`${why}; the session started in it, castellan switched it to "${target}"`);
    return undefined;
  }

  /** The agent says it changed its own mode: into a refused one, castellan switches it back and says so. */
  async agentChanged(params: unknown): Promise<void> {
    const p = obj(params);
    const u = obj(p.update);
    const sessionId = str(p.sessionId) ?? '';
    const id = str(u.currentModeId);
    const s = this.sessions.get(sessionId);
    if (u.sessionUpdate !== 'current_mode_update' || !id || !s) return;
    const target = this.fallback(sessionId);
    s.current = id;
    const why = await this.refusal(sessionId, id);
    if (!why) return;
    try {
      if (!target) throw new Error('the agent offers no mode that asks for permission');
      await this.h.requestAgent('session/set_mode', { sessionId, modeId: target });
      s.current = target;
      await this.h.record({ type: 'acp_mode_changed', from: id, to: target, reason: why, by: 'agent' }, sessionId);
      await this.say(sessionId, `${why}; the agent switched itself into it, castellan switched it back to "${target}"`);
      await this.showMode(sessionId);
    } catch (e) {
      // Cannot leave the mode: stop the turn rather than let gated tools run unasked.
      await this.h.record({ type: 'acp_mode_refused', mode: id, reason: why, via: 'agent' }, sessionId);
      await this.h.notifyAgent('session/cancel', { sessionId }).catch(() => undefined);
      await this.say(sessionId, `${why}; the agent switched itself into it and castellan could not switch it back (${(e as Error).message}), so it cancelled the turn`);
    }
  }
}
