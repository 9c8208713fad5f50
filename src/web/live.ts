// One page's WebSocket: the herd pushed on every change, panes streamed while open, and the page's actions (checked, audited).
import type { WebSocket } from 'ws';
import { z } from 'zod';
import { answerKeys, answerSequence, pressKeys } from './answer-keys.js';
import type { HerdRow } from './herd.js';
import type { BrowserSession } from './pairing.js';
import type { PaneScreen, WebHost } from './types.js';

/** The largest message a page may send (ws closes the socket with 1009 past it). */
export const MAX_MESSAGE_BYTES = 64 * 1024;
/** Malformed messages tolerated before the socket is closed. */
const MAX_BAD = 20;
/** A pane's frames go out at most this often. */
const FRAME_MS = 40;
/** Above this many queued bytes, frames wait (a slow phone drops intermediate frames instead of queueing them). */
const HIGH_WATER = 512 * 1024;
const HISTORY_LINES = 2000;

const pane = z.string().regex(/^w\d{1,9}:p\d{1,9}$/);
const Incoming = z.discriminatedUnion('t', [
  z.object({ t: z.literal('open'), pane }).strict(),
  z.object({ t: z.literal('close'), pane }).strict(),
  z.object({ t: z.literal('typing'), pane, on: z.boolean() }).strict(),
  z.object({ t: z.literal('input'), pane, data: z.string().min(1).max(4096) }).strict(),
  z.object({ t: z.literal('answer'), pane, answer: z.enum(['approve', 'deny']), message: z.string().max(4000).optional() }).strict(),
  z.object({ t: z.literal('prompt'), pane, text: z.string().min(1).max(16_000) }).strict(),
  z.object({ t: z.literal('ask_answer'), id: z.string().regex(/^a\d{1,12}$/), answer: z.enum(['allow', 'deny']) }).strict(),
]);
type Incoming = z.infer<typeof Incoming>;

interface View {
  screen: PaneScreen;
  unsub(): void;
  timer?: NodeJS.Timeout;
  sent: string[];
  cols: number;
  rows: number;
}

/** Strips what must not reach a pane from text the page sends as a prompt or message (it is typed, not pasted). */
const promptText = (s: string): string => s.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '').replace(/\r?\n/g, ' ');

export class LivePage {
  private readonly views = new Map<string, View>();
  private readonly typing = new Set<string>();
  private bad = 0;
  private closed = false;
  private alive = true;

  constructor(
    private readonly ws: WebSocket,
    private readonly who: BrowserSession,
    private readonly host: WebHost,
    private readonly remote: string,
  ) {
    ws.on('message', (data, isBinary) => this.onMessage(data as Buffer, isBinary));
    ws.on('pong', () => (this.alive = true));
    ws.on('close', () => this.dispose());
    ws.on('error', () => this.dispose());
    this.send({ t: 'hello', session: host.session, version: host.version, browser: who.id, read_only: who.readOnly });
  }

  /** Panes this page has open (a notification is not needed for what someone is looking at). */
  get openPanes(): string[] {
    return [...this.views.keys()];
  }

  ask(a: Record<string, unknown>): void {
    this.send({ t: 'ask', ...a });
  }

  askDone(d: unknown): void {
    this.send({ t: 'ask_done', ...(d as object) });
  }

  /** Called every HEARTBEAT_MS: a page that did not answer the last ping (a phone that slept, a dropped network) is cut. */
  heartbeat(): void {
    if (this.closed) return;
    if (!this.alive) {
      this.ws.terminate();
      this.dispose();
      return;
    }
    this.alive = false;
    this.ws.ping();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  herd(rows: HerdRow[]): void {
    this.send({ t: 'herd', now: Date.now(), rows });
  }

  close(code: number, reason: string): void {
    if (!this.closed) this.ws.close(code, reason);
    this.dispose();
  }

  private send(msg: unknown): void {
    if (this.closed || this.ws.readyState !== this.ws.OPEN) return;
    this.ws.send(JSON.stringify(msg));
  }

  private onMessage(data: Buffer, isBinary: boolean): void {
    let msg: Incoming;
    try {
      if (isBinary) throw new Error('binary');
      msg = Incoming.parse(JSON.parse(data.toString('utf8')));
    } catch {
      if (++this.bad > MAX_BAD) this.close(1008, 'too many malformed messages');
      else this.send({ t: 'error', message: 'malformed message' });
      return;
    }
    try {
      this.handle(msg);
    } catch (err) {
      this.send({ t: 'error', ...('pane' in msg ? { pane: msg.pane } : {}), message: (err as Error).message });
    }
  }

  private handle(m: Incoming): void {
    if (m.t === 'open') return this.open(m.pane);
    if (m.t === 'close') return this.closeView(m.pane);
    if (m.t === 'ask_answer') return this.answerAsk(m.id, m.answer);
    const st = this.host.state().panes[m.pane];
    if (!st) throw new Error(`no pane ${m.pane}`);
    const agent = st.agent.agent;
    const record = { kind: 'web', browser_session: this.who.id, remote: this.remote, pane: m.pane, ...(agent ? { agent } : {}) };
    if (this.who.readOnly) {
      this.host.audit({ ...record, action: m.t, outcome: 'refused', reason: 'read-only pairing' });
      throw new Error('this browser was paired read-only');
    }
    switch (m.t) {
      case 'typing':
        if (m.on) this.typing.add(m.pane);
        else this.typing.delete(m.pane);
        this.host.audit({ ...record, action: m.on ? 'typing_on' : 'typing_off' });
        this.send({ t: 'typing', pane: m.pane, on: m.on });
        return;
      case 'input':
        // Typing is off until the person turns it on for this pane: a stray tap on a phone keyboard types nothing.
        if (!this.typing.has(m.pane)) throw new Error('typing is off for this pane');
        this.host.write(m.pane, m.data);
        this.host.audit({ ...record, action: 'keys', bytes: Buffer.byteLength(m.data) });
        return;
      case 'answer': {
        // Only a dialog that is up gets an answer: an Enter sent to a working agent would be a prompt, not a yes.
        if (st.agent.state !== 'blocked') throw new Error(`${m.pane} is not waiting for an answer (it is ${st.agent.state})`);
        const keys = answerKeys(agent, this.host.screen(m.pane)?.viewportRows());
        const message = m.answer === 'deny' && m.message ? promptText(m.message).trim() : '';
        const pressed = pressKeys((data) => this.host.write(m.pane, data), answerSequence(keys, m.answer, !!message));
        this.host.audit({ ...record, action: m.answer, ...(message ? { message } : {}) });
        const fail = (e: Error) => this.send({ t: 'error', pane: m.pane, message: e.message });
        if (message) void pressed.then(() => setTimeout(() => void this.host.prompt(m.pane, message).catch(fail), keys.messageDelayMs).unref(), fail);
        else pressed.catch(fail);
        this.send({ t: 'done', pane: m.pane, action: m.answer });
        return;
      }
      case 'prompt': {
        if (st.exited) throw new Error(`${m.pane} has exited`);
        if (st.agent.state === 'blocked') throw new Error(`${m.pane} is waiting for an answer: approve or deny first`);
        const text = promptText(m.text).trim();
        if (!text) throw new Error('empty prompt');
        this.host.audit({ ...record, action: 'prompt', text });
        void this.host.prompt(m.pane, text).then(
          (r) => this.send(r.sent ? { t: 'done', pane: m.pane, action: 'prompt' } : { t: 'error', pane: m.pane, message: `not sent: ${r.reason ?? 'refused'}` }),
          (e: Error) => this.send({ t: 'error', pane: m.pane, message: e.message }),
        );
        return;
      }
    }
  }

  /** A governance question (policy `prompt`) answered from the page: the same answer an attached client gives. */
  private answerAsk(id: string, answer: 'allow' | 'deny'): void {
    const record = { kind: 'web', browser_session: this.who.id, remote: this.remote, ask: id };
    if (this.who.readOnly) {
      this.host.audit({ ...record, action: `ask_${answer}`, outcome: 'refused', reason: 'read-only pairing' });
      throw new Error('this browser was paired read-only');
    }
    const accepted = this.host.answerAsk(id, answer);
    this.host.audit({ ...record, action: `ask_${answer}`, outcome: accepted ? 'accepted' : 'too late' });
    if (!accepted) throw new Error('that question was already answered or timed out');
    this.send({ t: 'done', action: answer === 'allow' ? 'approve' : 'deny' });
  }

  private open(id: string): void {
    if (this.views.has(id)) this.closeView(id);
    if (this.views.size >= 4) throw new Error('at most 4 panes open at once');
    const screen = this.host.screen(id);
    if (!screen) throw new Error(`no pane ${id}`);
    const view: View = { screen, unsub: () => undefined, sent: [], cols: screen.cols, rows: screen.rows };
    view.unsub = screen.onChange(() => this.schedule(id));
    this.views.set(id, view);
    const rows = screen.viewportRows();
    view.sent = rows.slice();
    this.send({ t: 'screen', pane: id, cols: screen.cols, rows: screen.rows, history: screen.history(HISTORY_LINES), lines: rows, cursor: screen.cursor(), typing: this.typing.has(id) });
  }

  private schedule(id: string): void {
    const v = this.views.get(id);
    if (!v || v.timer) return;
    v.timer = setTimeout(() => {
      v.timer = undefined;
      if (this.ws.bufferedAmount > HIGH_WATER) return this.schedule(id);
      this.frame(id, v);
    }, FRAME_MS);
  }

  private frame(id: string, v: View): void {
    const s = v.screen;
    if (s.cols !== v.cols || s.rows !== v.rows) {
      // A resized pane starts over: its rows no longer line up with what the page has.
      this.views.delete(id);
      v.unsub();
      return this.open(id);
    }
    const rows = s.viewportRows();
    // Output that scrolled: the page scrolls too (its top rows go into its own history, as on a terminal), then only
    // the rows that differ from the shifted screen are sent.
    const k = scrolledBy(v.sent, rows);
    const base = k ? [...v.sent.slice(k), ...Array<string>(k).fill('')] : v.sent;
    const changed: Record<number, string> = {};
    for (let i = 0; i < rows.length; i++) if (rows[i] !== base[i]) changed[i] = rows[i];
    v.sent = rows.slice();
    this.send({ t: 'frame', pane: id, ...(k ? { scroll: k } : {}), rows: changed, cursor: s.cursor() });
  }

  private closeView(id: string): void {
    const v = this.views.get(id);
    if (!v) return;
    clearTimeout(v.timer);
    v.unsub();
    this.views.delete(id);
  }

  private dispose(): void {
    if (this.closed) return;
    this.closed = true;
    for (const id of [...this.views.keys()]) this.closeView(id);
  }
}

/**
 * How many lines the screen scrolled between two frames: the smallest k whose shifted old screen matches the new one
 * on every overlapping row that had text (with at least one such row; rows that were blank may have been written since,
 * as a scrolling log writes its new last lines), when that leaves fewer rows to send than no shift; else 0.
 */
export function scrolledBy(old: readonly string[], now: readonly string[]): number {
  const n = now.length;
  if (old.length !== n || n < 2) return 0;
  let plain = 0;
  for (let i = 0; i < n; i++) if (old[i] !== now[i]) plain++;
  if (plain === 0) return 0;
  for (let k = 1; k < n; k++) {
    let same = true;
    let text = false;
    for (let i = 0; i + k < n && same; i++) {
      if (old[i + k] === '') continue;
      if (now[i] !== old[i + k]) same = false;
      else text = true;
    }
    if (same && text && k < plain) return k;
  }
  return 0;
}
