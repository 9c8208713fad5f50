// The herd across sessions and machines: the serving session's own panes, plus every other session of this machine
// (over its socket, as the CLI reaches it) and every machine in the profiles (over ssh, through src/machines). Each
// peer is asked on its own with a deadline; the page is drawn from what is known at once and never waits for one: a
// peer that is slow, gone or unreachable keeps its last rows, marked stale (dimmed on the page).
import { herdRows, sortRows, type HerdRow } from './herd.js';
import { formatPaneRef, peerKey, type PaneRef } from './pane-ref.js';
import type { Peer, PeerClient, WebHost } from './types.js';

/** How often peers are looked for again (new sessions, machines back) while a page is open. */
export const DISCOVER_MS = 5000;
/** How long one peer has to answer a herd request. */
export const HERD_TIMEOUT_MS = 3000;
/** Events of a burst are answered with one herd request this long after the first. */
const COALESCE_MS = 30;
/** A session that stopped keeps its dimmed cards this long. */
export const GONE_MS = 60_000;
const MAX_PEERS = 64;
const MAX_ROWS_PER_PEER = 500;

export interface SourceStatus {
  machine?: string;
  session: string;
  ok: boolean;
  /** Why it is not answering (its rows, if any, are the last ones it sent). */
  error?: string;
  /** When its rows were last fresh (ms since epoch). */
  at?: number;
}

interface Link {
  peer: Peer;
  client?: PeerClient;
  connecting?: Promise<void>;
  rows: HerdRow[];
  ok: boolean;
  error?: string;
  at?: number;
  timer?: NodeJS.Timeout;
  gone?: boolean;
  /** When discovery first did not find it any more. */
  missing?: number;
}

const short = (e: unknown): string => String((e as Error)?.message ?? e).replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ').slice(0, 200);

/** Bounds a promise: a peer that does not answer in time is an error, and what it answers later is dropped. */
function deadline<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms)));
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

export class Wide {
  private readonly links = new Map<string, Link>();
  private discoverTimer: NodeJS.Timeout | undefined;
  private discovering = false;
  private running = false;

  constructor(private readonly host: WebHost, private readonly changed: () => void) {}

  /** Starts looking for peers (when the first page opens); idempotent. */
  start(): void {
    if (this.running || !this.host.peers) return;
    this.running = true;
    void this.discover();
    this.discoverTimer = setInterval(() => void this.discover(), DISCOVER_MS).unref();
  }

  /** Drops every connection (no page open: nothing is asked of anyone). */
  stop(): void {
    this.running = false;
    clearInterval(this.discoverTimer);
    for (const l of this.links.values()) this.drop(l);
    this.links.clear();
  }

  /** Every row: this session's, then each peer's with ids that name their session (and machine). */
  rows(): HerdRow[] {
    const own = herdRows(this.host.state());
    const others = [...this.links.values()].flatMap((l) =>
      l.rows.map((r) => ({ ...r, pane: formatPaneRef({ machine: l.peer.machine, session: l.peer.session, pane: r.pane }), session: l.peer.session, ...(l.peer.machine ? { machine: l.peer.machine } : {}), ...(l.ok ? {} : { stale: true }) })),
    );
    if (!others.length) return own;
    return sortRows([...own.map((r) => ({ ...r, session: this.host.session })), ...others]);
  }

  sources(): SourceStatus[] {
    return [...this.links.values()].map((l) => ({ ...(l.peer.machine ? { machine: l.peer.machine } : {}), session: l.peer.session, ok: l.ok, ...(l.error ? { error: l.error } : {}), ...(l.at ? { at: l.at } : {}) }));
  }

  /**
   * The connection for a pane of another session, or an Error saying why not. Only peers found by discovery are
   * reached: an id naming a session that does not run here, or a machine not in the profiles, goes nowhere.
   */
  route(ref: PaneRef): { client: PeerClient; peer: Peer } | Error {
    const key = peerKey(ref);
    const l = key ? this.links.get(key) : undefined;
    if (!l) return new Error(ref.machine ? `no machine ${ref.machine} with session ${ref.session} in the herd` : `no session ${ref.session} on this machine`);
    if (!l.ok || !l.client) return new Error(`${key} is not answering${l.error ? `: ${l.error}` : ''}`);
    return { client: l.client, peer: l.peer };
  }

  /** Is this ref the serving session's own pane (bare, or naming this session on this machine)? */
  isOwn(ref: PaneRef): boolean {
    return !ref.session || (!ref.machine && ref.session === this.host.session);
  }

  private async discover(): Promise<void> {
    if (this.discovering || !this.running) return;
    this.discovering = true;
    try {
      let peers: Peer[] = [];
      try {
        peers = (await this.host.peers!()).slice(0, MAX_PEERS);
      } catch (e) {
        this.host.log(`web: looking for other sessions failed: ${short(e)}`);
      }
      if (!this.running) return;
      const keys = new Set<string>();
      for (const p of peers) {
        const key = peerKey(p)!;
        if (!p.machine && p.session === this.host.session) continue;
        keys.add(key);
        let l = this.links.get(key);
        if (!l) this.links.set(key, (l = { peer: p, rows: [], ok: false }));
        if (!l.client && !l.connecting) l.connecting = this.connect(l).finally(() => (l!.connecting = undefined));
      }
      let dropped = false;
      const now = Date.now();
      for (const [key, l] of this.links) {
        if (keys.has(key)) {
          l.missing = undefined;
          continue;
        }
        // A session whose socket went away (stopped, killed) stays a while, dimmed, as its last rows; a machine taken
        // out of the profiles goes at once.
        l.missing ??= now;
        if (!l.peer.machine && (l.ok || now - l.missing < GONE_MS)) continue;
        this.drop(l);
        this.links.delete(key);
        dropped = true;
      }
      if (dropped) this.changed();
    } finally {
      this.discovering = false;
    }
  }

  private async connect(l: Link): Promise<void> {
    const what = l.peer.machine ? `machine ${l.peer.machine}` : `session ${l.peer.session}`;
    let client: PeerClient | undefined;
    try {
      const opening = l.peer.connect();
      let late = false;
      // One that connects after its deadline is closed as soon as it does.
      opening.then((c) => late && c.close(), () => undefined);
      client = await deadline(opening, l.peer.connectMs, what).catch((e: unknown) => {
        late = true;
        throw e;
      });
      if (l.gone || !this.running) return client.close();
      l.client = client;
      // The server closes connections that look done (idle-close); this one listens for as long as the page is open.
      client.notify('connection.keep', {});
      const sub = client.nextId();
      client.onMessage((m) => {
        if (m.id === sub && (m.event as { type?: string } | undefined)?.type !== 'web_action') this.schedule(l);
      });
      client.onClosed(() => {
        if (l.client !== client) return;
        l.client = undefined;
        this.fail(l, `${what}: connection closed`);
      });
      await deadline(client.request('events.subscribe', {}, { id: sub, timeoutMs: HERD_TIMEOUT_MS }), HERD_TIMEOUT_MS, what);
      await this.fetch(l);
    } catch (e) {
      if (client && l.client === client) l.client = undefined;
      client?.close();
      this.fail(l, short(e));
    }
  }

  private schedule(l: Link): void {
    if (l.timer) return;
    l.timer = setTimeout(() => {
      l.timer = undefined;
      void this.fetch(l).catch((e: unknown) => {
        const c = l.client;
        l.client = undefined;
        c?.close();
        this.fail(l, short(e));
      });
    }, COALESCE_MS).unref();
  }

  private async fetch(l: Link): Promise<void> {
    const c = l.client;
    if (!c) return;
    const what = l.peer.machine ? `machine ${l.peer.machine}` : `session ${l.peer.session}`;
    const r = await deadline(c.request<{ rows?: unknown }>('web.herd', {}, { timeoutMs: HERD_TIMEOUT_MS }), HERD_TIMEOUT_MS, what);
    if (l.gone || l.client !== c) return;
    l.rows = cleanRows(r?.rows);
    l.ok = true;
    l.error = undefined;
    l.at = Date.now();
    this.changed();
  }

  private fail(l: Link, why: string): void {
    if (l.gone) return;
    const was = l.ok;
    l.ok = false;
    l.error = why;
    if (was || l.rows.length === 0) this.changed();
  }

  private drop(l: Link): void {
    l.gone = true;
    clearTimeout(l.timer);
    const c = l.client;
    l.client = undefined;
    c?.close();
  }
}

const STATES = new Set(['blocked', 'done', 'idle', 'working', 'unknown']);
const str = (v: unknown, max: number): string | undefined => (typeof v === 'string' ? v.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ').slice(0, max) : undefined);

/** Another server's rows are data: each field checked and bounded (a machine's are already cleaned by src/machines). */
export function cleanRows(v: unknown): HerdRow[] {
  if (!Array.isArray(v)) return [];
  const out: HerdRow[] = [];
  for (const r of v.slice(0, MAX_ROWS_PER_PEER) as Array<Record<string, unknown>>) {
    if (!r || typeof r !== 'object') continue;
    const pane = str(r.pane, 24);
    if (!pane || !/^w\d{1,9}:p\d{1,9}$/.test(pane) || !STATES.has(r.state as string)) continue;
    const agent = str(r.agent, 40);
    const message = str(r.message, 500);
    out.push({
      pane,
      window: str(r.window, 24) ?? '',
      title: str(r.title, 200) ?? pane,
      ...(agent ? { agent } : {}),
      state: r.state as HerdRow['state'],
      ...(message ? { message } : {}),
      since: typeof r.since === 'number' && Number.isFinite(r.since) ? r.since : 0,
      needsMe: r.needsMe === true,
      inView: r.inView === true,
      ...(r.exited === true ? { exited: true } : {}),
    });
  }
  return out;
}
