// One page's WebSocket: the herd pushed on every change, panes streamed while open, and the page's actions (checked,
// audited). A pane of another session or machine is streamed and acted on through that server's socket (src/web/wide.ts).
import type { WebSocket } from 'ws';
import { z } from 'zod';
import { act, type Action } from './act.js';
import { PaneFeed, HISTORY_LINES } from './feed.js';
import type { HerdRow } from './herd.js';
import { MAX_REF, parsePaneRef, type PaneRef } from './pane-ref.js';
import type { BrowserSession } from './pairing.js';
import type { PeerClient, WebHost } from './types.js';
import type { SourceStatus, Wide } from './wide.js';

export { scrolledBy } from './feed.js';

/** The largest message a page may send (ws closes the socket with 1009 past it). */
export const MAX_MESSAGE_BYTES = 64 * 1024;
/** Malformed messages tolerated before the socket is closed. */
const MAX_BAD = 20;
/** Above this many queued bytes, frames wait (a slow phone drops intermediate frames instead of queueing them). */
const HIGH_WATER = 512 * 1024;
/** How long another server has to answer an action or a pane's first screen. */
const PEER_MS = 5000;

const pane = z.string().max(MAX_REF).refine((s) => parsePaneRef(s) !== undefined, 'not a pane id');
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

/** A pane open on this page: fed here, or by another server (its web.view stream). */
type View = { stop(): void };

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
    private readonly wide?: Wide,
  ) {
    ws.on('message', (data, isBinary) => this.onMessage(data as Buffer, isBinary));
    ws.on('pong', () => (this.alive = true));
    ws.on('close', () => this.dispose());
    ws.on('error', () => this.dispose());
    this.send({ t: 'hello', session: host.session, version: host.version, browser: who.id, read_only: who.readOnly });
  }

  /** Panes of this session this page has open (a notification is not needed for what someone is looking at). */
  get openPanes(): string[] {
    return [...this.views.keys()].filter((id) => !parsePaneRef(id)?.session);
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

  herd(rows: HerdRow[], sources: SourceStatus[] = []): void {
    this.send({ t: 'herd', now: Date.now(), rows, ...(sources.length ? { sources } : {}) });
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
    const fail = (err: unknown) => this.send({ t: 'error', ...('pane' in msg ? { pane: msg.pane } : {}), message: (err as Error).message });
    try {
      const r = this.handle(msg);
      if (r) r.catch(fail);
    } catch (err) {
      fail(err);
    }
  }

  /** Where a pane id leads: this session's pane (its own id), or another server's connection. */
  private where(id: string): { own: true; pane: string } | { own: false; pane: string; ref: PaneRef; client: PeerClient } {
    const ref = parsePaneRef(id)!;
    if (!this.wide || this.wide.isOwn(ref)) return { own: true, pane: ref.pane };
    const r = this.wide.route(ref);
    if (r instanceof Error) throw r;
    return { own: false, pane: ref.pane, ref, client: r.client };
  }

  private handle(m: Incoming): Promise<void> | void {
    if (m.t === 'open') return this.open(m.pane);
    if (m.t === 'close') return this.closeView(m.pane);
    if (m.t === 'ask_answer') return this.answerAsk(m.id, m.answer);
    const to = this.where(m.pane);
    if (this.who.readOnly) {
      const agent = to.own ? this.host.state().panes[to.pane]?.agent.agent : undefined;
      this.host.audit({ kind: 'web', browser_session: this.who.id, remote: this.remote, pane: m.pane, ...(agent ? { agent } : {}), action: m.t, outcome: 'refused', reason: 'read-only pairing' });
      throw new Error('this browser was paired read-only');
    }
    // Typing is off until the person turns it on for this pane: a stray tap on a phone keyboard types nothing.
    if (m.t === 'input' && !this.typing.has(m.pane)) throw new Error('typing is off for this pane');
    const action = { ...m, pane: to.pane } as Action;
    // Typing turns on at once (keys sent right after it are typed), and back off if the pane's server refuses.
    const was = this.typing.has(m.pane);
    if (m.t === 'typing') {
      if (m.on) this.typing.add(m.pane);
      else this.typing.delete(m.pane);
    }
    const undo = (e: unknown) => {
      if (m.t === 'typing') {
        if (was) this.typing.add(m.pane);
        else this.typing.delete(m.pane);
      }
      throw e;
    };
    const done = () => {
      if (m.t === 'typing') this.send({ t: 'typing', pane: m.pane, on: m.on });
      else if (m.t === 'answer' || m.t === 'prompt') this.send({ t: 'done', pane: m.pane, action: m.t === 'answer' ? m.answer : 'prompt' });
    };
    if (to.own) {
      const late = (e: Error) => this.send({ t: 'error', pane: m.pane, message: e.message });
      return act(this.host, { browser_session: this.who.id, remote: this.remote }, action, late).then(done, undo);
    }
    // Carried out (and audited) by the server that owns the pane, with this browser session and this server's name.
    return to.client.request('web.act', { ...action, browser_session: this.who.id, remote: this.remote, via: this.host.session }, { timeoutMs: PEER_MS }).then(done, (e: Error) => undo(new Error(e.message.replace(/^machine [^:]+: /, ''))));
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

  private sink(id: string) {
    return {
      send: (msg: { t: string }) => this.send({ ...msg, pane: id, ...(msg.t === 'screen' ? { typing: this.typing.has(id) } : {}) }),
      slow: () => this.ws.bufferedAmount > HIGH_WATER,
    };
  }

  private open(id: string): Promise<void> | void {
    if (this.views.has(id)) this.closeView(id);
    if (this.views.size >= 4) throw new Error('at most 4 panes open at once');
    const to = this.where(id);
    if (to.own) {
      const screen = this.host.screen(to.pane);
      if (!screen) throw new Error(`no pane ${id}`);
      const feed = new PaneFeed(screen, id, this.sink(id));
      this.views.set(id, feed);
      feed.start();
      return;
    }
    return this.openRemote(id, to.pane, to.client);
  }

  /** Another server streams the pane (web.view): its screen is the reply, its frames come tagged with the request id. */
  private async openRemote(id: string, paneId: string, client: PeerClient): Promise<void> {
    const sub = client.nextId();
    const sink = this.sink(id);
    let stopped = false;
    let behind = false;
    const off = client.onMessage((m) => {
      if (m.id !== sub || stopped || !m.web || typeof m.web !== 'object') return;
      const f = m.web as { t?: string };
      if (f.t !== 'frame' && f.t !== 'screen') return;
      // Frames are changes to the last one: a page too slow for one starts over from a whole screen once it drained.
      if (behind || sink.slow()) {
        if (!behind) {
          behind = true;
          setTimeout(() => void restart(), 200).unref();
        }
        return;
      }
      sink.send(f as { t: string });
    });
    const view: View = {
      stop: () => {
        stopped = true;
        off();
        client.request('events.unsubscribe', { subscription: sub }, { timeoutMs: PEER_MS }).catch(() => undefined);
      },
    };
    const restart = async () => {
      if (stopped) return;
      if (sink.slow()) return void setTimeout(() => void restart(), 200).unref();
      behind = false;
      if (this.views.get(id) === view) {
        view.stop();
        this.views.delete(id);
        await this.openRemote(id, paneId, client).catch(() => undefined);
      }
    };
    this.views.set(id, view);
    try {
      const first = await client.request<{ t?: string }>('web.view', { pane: paneId, history: HISTORY_LINES }, { id: sub, timeoutMs: PEER_MS });
      if (!stopped && first?.t === 'screen') sink.send(first as { t: string });
    } catch (e) {
      if (this.views.get(id) === view) this.views.delete(id);
      view.stop();
      throw new Error((e as Error).message.replace(/^machine [^:]+: /, ''));
    }
  }

  private closeView(id: string): void {
    const v = this.views.get(id);
    if (!v) return;
    v.stop();
    this.views.delete(id);
  }

  private dispose(): void {
    if (this.closed) return;
    this.closed = true;
    for (const id of [...this.views.keys()]) this.closeView(id);
  }
}
