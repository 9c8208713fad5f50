// [notify]: runs the user's own command when an agent blocks, finishes or exits: once per change, debounced, never for a pane in view.
import { spawn } from 'node:child_process';
import type { StampedEvent } from '../core/events.js';
import { focusedPanes } from '../core/select.js';
import { stripControls } from '../core/text.js';
import type { State } from '../core/types.js';

export type NotifyKind = 'blocked' | 'done' | 'exited';

export interface NotifyConfig {
  command: string;
  events: readonly NotifyKind[];
  debounce_ms: number;
}

export interface NotifyHost {
  config(): NotifyConfig;
  state(): State;
  /** Panes a web page has open. */
  watched(): Set<string>;
  subscribe(cb: (e: StampedEvent) => void): () => void;
  session: string;
  /** The session's environment (a server hosting several sessions has one process.env for all: src/server/host.ts). */
  env?: NodeJS.ProcessEnv;
  log(msg: string): void;
  /** Tests: a fake clock. */
  setTimer?: (fn: () => void, ms: number) => NodeJS.Timeout;
}

/** What the command learns: as CASTELLAN_NOTIFY_* variables and as one JSON object on stdin. */
export interface Notice {
  event: NotifyKind;
  session: string;
  pane: string;
  agent: string;
  state: string;
  message: string;
  title: string;
  /** When the state began (ms since epoch): with `pane`, what makes one event one. */
  since: number;
}

const RUN_TIMEOUT_MS = 10_000;
const MAX_RUNNING = 4;
const clean = (s: string, max: number) => stripControls(s, ' ').slice(0, max);

export class Notifier {
  private readonly pending = new Map<string, { kind: NotifyKind; timer: NodeJS.Timeout }>();
  /** The last event told per pane: the same one is never told twice. */
  private readonly told = new Map<string, string>();
  private running = 0;
  private readonly unsub: () => void;

  constructor(private readonly h: NotifyHost) {
    this.unsub = h.subscribe((e) => this.onEvent(e));
  }

  private onEvent(e: StampedEvent): void {
    // Only state changes and exits move a pane's pending message (a turn-ended or hook event beside them does not).
    if (e.type !== 'pane_agent_status_changed' && e.type !== 'pane_exited') return;
    const cfg = this.h.config();
    if (!cfg.command.trim()) return;
    let kind: NotifyKind | undefined;
    if (e.type === 'pane_agent_status_changed' && (e.new === 'blocked' || e.new === 'done')) kind = e.new;
    else if (e.type === 'pane_exited') kind = 'exited';
    const pane = (e as { pane?: string }).pane;
    if (!pane) return;
    const prev = this.pending.get(pane);
    if (prev) clearTimeout(prev.timer);
    this.pending.delete(pane);
    // Any change restarts the wait: a state that flaps sends one message, about where it settled.
    if (!kind || !cfg.events.includes(kind)) return;
    const set = this.h.setTimer ?? ((fn, ms) => setTimeout(fn, ms).unref());
    this.pending.set(pane, { kind, timer: set(() => this.fire(pane, kind), cfg.debounce_ms) });
  }

  private fire(pane: string, kind: NotifyKind): void {
    this.pending.delete(pane);
    const st = this.h.state();
    const p = st.panes[pane];
    if (!p) return;
    // Still so after the debounce, or it is not news any more.
    if (kind === 'exited' ? !p.exited : p.exited || p.agent.state !== kind) return;
    if (focusedPanes(st).has(pane) || this.h.watched().has(pane)) return;
    const since = kind === 'exited' ? p.exited!.at : p.agent.since;
    const key = `${kind}:${since}`;
    if (this.told.get(pane) === key) return;
    this.told.set(pane, key);
    const notice: Notice = {
      event: kind,
      session: this.h.session,
      pane,
      agent: clean(p.agent.agent ?? '', 40),
      state: kind === 'exited' ? 'exited' : p.agent.state,
      message: clean(kind === 'exited' ? `exited with ${p.exited?.code ?? p.exited?.signal ?? '?'}` : (p.agent.message ?? ''), 1000),
      title: clean(p.name || p.programTitle || p.command.join(' '), 200),
      since,
    };
    this.run(notice);
  }

  private run(n: Notice): void {
    const command = this.h.config().command;
    if (this.running >= MAX_RUNNING) {
      this.h.log(`notify: ${MAX_RUNNING} commands still running; ${n.event} of ${n.pane} not sent`);
      return;
    }
    this.running++;
    const env: NodeJS.ProcessEnv = { ...(this.h.env ?? process.env) };
    for (const [k, v] of Object.entries(n)) env[`CASTELLAN_NOTIFY_${k.toUpperCase()}`] = String(v);
    let child;
    try {
      child = spawn('/bin/sh', ['-c', command], { env, stdio: ['pipe', 'ignore', 'pipe'], detached: false });
    } catch (e) {
      this.running--;
      this.h.log(`notify: cannot run the command: ${(e as Error).message}`);
      return;
    }
    let err = '';
    child.stderr?.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-500)));
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(JSON.stringify(n) + '\n');
    const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS).unref();
    child.on('error', (e) => this.h.log(`notify: ${e.message}`));
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      this.running--;
      if (code !== 0) this.h.log(`notify: the command ended with ${code ?? signal}${err ? `: ${err.trim()}` : ''}`);
    });
  }

  dispose(): void {
    this.unsub();
    for (const p of this.pending.values()) clearTimeout(p.timer);
    this.pending.clear();
  }
}

export function startNotify(h: NotifyHost): { dispose(): void } {
  return new Notifier(h);
}
