// The web view's HTTP(S) + WebSocket server: the page, its assets, pairing, and the live socket, each request guarded.
import { readFileSync } from 'node:fs';
import { createServer as createHttp, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttps } from 'node:https';
import { isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { assetFor } from './assets.js';
import { hostAllowed, originAllowed, SECURITY_HEADERS, type GuardConfig } from './guard.js';
import { LivePage, MAX_MESSAGE_BYTES } from './live.js';
import { COOKIE, Pairing, readCookie, SESSION_MAX_AGE_S } from './pairing.js';
import type { WebHost, WebSettings, WebStatus } from './types.js';
import { Wide } from './wide.js';

const MAX_BODY = 4096;
const MAX_PAGES = 16;
/** Pages are pinged this often; one silent for a whole period is cut, so dead phones do not hold the page slots. */
export const HEARTBEAT_MS = 30_000;
/** The herd goes out this long after the first change of a burst (one push for a burst of events). */
const HERD_COALESCE_MS = 15;

export class WebConfigError extends Error {
  override name = 'WebConfigError';
}

const isLoopback = (bind: string): boolean => bind === 'localhost' || bind === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bind);

/** Refuses settings that would put a shell on a network in the clear. */
export function checkSettings(s: WebSettings): void {
  if (!s.bind || s.bind.length > 253 || !(isIP(s.bind) || /^[A-Za-z0-9.-]+$/.test(s.bind))) throw new WebConfigError(`[web] bind: not an address: ${JSON.stringify(s.bind)}`);
  if (isLoopback(s.bind)) return;
  if (!s.tlsCert || !s.tlsKey)
    throw new WebConfigError(`refusing to serve plain HTTP on ${s.bind}: the page can type into your shells. Keep the default 127.0.0.1 and reach it through ssh -L or Tailscale, or give a TLS certificate and key ([web] tls_cert, tls_key) and allow_remote = true`);
  if (!s.allowRemote) throw new WebConfigError(`refusing to listen on ${s.bind} without [web] allow_remote = true (or --allow-remote): only loopback is served by default`);
}

export class WebServer {
  readonly pairing: Pairing;
  private readonly wide: Wide;
  private readonly server: Server;
  private readonly wss: WebSocketServer;
  private readonly pages = new Set<LivePage>();
  private readonly guard: GuardConfig;
  private herdTimer: NodeJS.Timeout | undefined;
  private readonly unsubEvents: () => void;
  private port = 0;
  private readonly heartbeat: NodeJS.Timeout;
  /** Governance questions still open, for pages that connect while they wait. */
  private readonly asks = new Map<string, Record<string, unknown>>();

  private constructor(private readonly s: WebSettings, private readonly host: WebHost) {
    this.guard = { bind: s.bind, hosts: s.hosts };
    this.pairing = new Pairing(Date.now, s.sessionsFile ? { file: s.sessionsFile, log: (m) => host.log(`web: ${m}`) } : undefined);
    this.wide = new Wide(host, () => this.scheduleHerd());
    // connectionsCheckingInterval: how often Node looks for requests past their timeouts (30 s by default: a slow-loris
    // client would hold a socket that long).
    const opts = { maxHeaderSize: 8192, requestTimeout: 10_000, headersTimeout: 5_000, keepAliveTimeout: 5_000, connectionsCheckingInterval: 1_000 };
    this.server = s.tlsCert && s.tlsKey ? createHttps({ ...opts, cert: readFileSync(s.tlsCert), key: readFileSync(s.tlsKey) }) : createHttp(opts);
    this.server.maxRequestsPerSocket = 100;
    this.server.on('request', (req, res) => this.onRequest(req, res));
    this.wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES, perMessageDeflate: false });
    this.server.on('upgrade', (req, sock, head) => this.onUpgrade(req, sock as Duplex, head));
    this.server.on('clientError', (_err, sock) => sock.destroy());
    this.pairing.onRevoke(() => {
      for (const p of [...this.pages]) p.close(4401, 'revoked');
    });
    this.heartbeat = setInterval(() => {
      for (const p of [...this.pages]) {
        p.heartbeat();
        if (p.isClosed) this.pages.delete(p);
      }
    }, s.heartbeatMs ?? HEARTBEAT_MS).unref();
    this.unsubEvents = host.onEvent((e) => {
      if (e.type === 'web_action') return;
      this.scheduleHerd();
    });
  }

  static async start(s: WebSettings, host: WebHost): Promise<WebServer> {
    checkSettings(s);
    const w = new WebServer(s, host);
    await new Promise<void>((resolve, reject) => {
      w.server.once('error', reject);
      w.server.listen(s.port, s.bind, () => {
        w.server.off('error', reject);
        resolve();
      });
    });
    w.server.on('error', (err) => host.log(`web: ${err.message}`));
    const addr = w.server.address();
    w.port = typeof addr === 'object' && addr ? addr.port : s.port;
    return w;
  }

  get url(): string {
    const name = isLoopback(this.s.bind) ? (this.s.bind === '::1' ? '[::1]' : this.s.bind) : this.s.hosts[0] ?? this.s.bind;
    return `${this.s.tlsCert ? 'https' : 'http'}://${name}:${this.port}/`;
  }

  get settings(): WebSettings {
    return this.s;
  }

  status(): WebStatus {
    return { running: true, url: this.url, bind: this.s.bind, port: this.port, tls: !!this.s.tlsCert, ...this.pairing.counts, pages: this.pages.size };
  }

  /** Panes some page has open right now. */
  watched(): Set<string> {
    return new Set([...this.pages].flatMap((p) => p.openPanes));
  }

  /** The session's {ask} / {ask_done} messages to attached clients, passed on to every page. */
  asked(msg: unknown): void {
    const m = msg as { ask?: { id?: unknown }; ask_done?: { id?: unknown } };
    if (m?.ask && typeof m.ask.id === 'string') {
      while (this.asks.size >= 32) this.asks.delete(this.asks.keys().next().value as string);
      const ask = { ...m.ask, at: Date.now() };
      this.asks.set(m.ask.id, ask);
      for (const p of this.pages) p.ask(ask);
    } else if (m?.ask_done && typeof m.ask_done.id === 'string') {
      this.asks.delete(m.ask_done.id);
      for (const p of this.pages) p.askDone(m.ask_done);
    }
  }

  pair(readOnly: boolean): { url: string; expires: number; read_only: boolean } {
    const ro = readOnly || this.s.readOnly;
    const { token, expires } = this.pairing.issue(ro);
    return { url: `${this.url}pair#${token}`, expires, read_only: ro };
  }

  async stop(): Promise<void> {
    this.unsubEvents();
    this.wide.stop();
    clearInterval(this.heartbeat);
    clearTimeout(this.herdTimer);
    for (const p of [...this.pages]) p.close(1001, 'server stopping');
    this.wss.close();
    this.server.closeAllConnections?.();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private scheduleHerd(): void {
    if (this.herdTimer || this.pages.size === 0) return;
    this.herdTimer = setTimeout(() => {
      this.herdTimer = undefined;
      const rows = this.wide.rows();
      const sources = this.wide.sources();
      for (const p of this.pages) p.herd(rows, sources);
    }, HERD_COALESCE_MS);
  }

  /** Host for every request; Origin for everything that acts. Undefined when allowed, else the status to refuse with. */
  private refused(req: IncomingMessage, acting: boolean): number | undefined {
    if (!hostAllowed(req.headers.host, this.guard)) return 421;
    if (!originAllowed(req.headers.origin, req.headers.host, acting)) return 403;
    // A browser says where a request comes from even without an Origin header on a GET.
    const site = req.headers['sec-fetch-site'];
    if (acting && site !== undefined && site !== 'same-origin') return 403;
    return undefined;
  }

  private answer(res: ServerResponse, status: number, body: string, type = 'text/plain; charset=utf-8', extra: Record<string, string> = {}): void {
    res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': type, 'content-length': Buffer.byteLength(body), ...extra });
    res.end(body);
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const path = (req.url ?? '/').split('?')[0];
    const acting = req.method !== 'GET' && req.method !== 'HEAD';
    const no = this.refused(req, acting);
    if (no) {
      req.resume();
      return this.answer(res, no, no === 421 ? 'unknown host\n' : 'cross-origin request refused\n');
    }
    if (req.method === 'POST' && path === '/api/pair') return this.onPair(req, res);
    if (acting) {
      req.resume();
      return this.answer(res, 405, 'method not allowed\n');
    }
    const asset = assetFor(path === '/pair' ? '/' : path);
    if (!asset) return this.answer(res, 404, 'not found\n');
    res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': asset.type, 'content-length': asset.body.length, ...(asset.cache ? { 'cache-control': 'private, max-age=3600' } : {}) });
    res.end(req.method === 'HEAD' ? undefined : asset.body);
  }

  private onPair(req: IncomingMessage, res: ServerResponse): void {
    if (!/^application\/json\b/.test(req.headers['content-type'] ?? '')) {
      req.resume();
      return this.answer(res, 415, 'expected application/json\n');
    }
    if (Number(req.headers['content-length'] ?? 0) > MAX_BODY) {
      req.destroy();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        this.answer(res, 413, 'too large\n');
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => {
      if (size > MAX_BODY) return;
      let token: unknown;
      try {
        token = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { token?: unknown })?.token;
      } catch {
        token = undefined;
      }
      const r = this.pairing.exchange(token);
      if (!r.ok) {
        this.host.audit({ kind: 'web', action: 'pair', outcome: 'refused', reason: r.why, remote: req.socket.remoteAddress });
        return this.answer(res, r.why === 'rate_limited' ? 429 : 403, r.why === 'rate_limited' ? 'too many pairing attempts; wait a minute\n' : 'pairing link invalid, used or expired: run castellan web --pair again\n');
      }
      this.host.audit({ kind: 'web', action: 'pair', outcome: 'paired', browser_session: r.session.id, read_only: r.session.readOnly, remote: req.socket.remoteAddress });
      const secure = this.s.tlsCert ? '; Secure' : '';
      const body = JSON.stringify({ ok: true, browser: r.session.id, read_only: r.session.readOnly });
      this.answer(res, 200, body, 'application/json', { 'set-cookie': `${COOKIE}=${r.cookie}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${SESSION_MAX_AGE_S}${secure}` });
    });
  }

  private onUpgrade(req: IncomingMessage, sock: Duplex, head: Buffer): void {
    const reject = (status: number, why: string) => {
      sock.end(`HTTP/1.1 ${status} ${why}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      sock.destroy();
    };
    if ((req.url ?? '').split('?')[0] !== '/ws') return reject(404, 'Not Found');
    const no = this.refused(req, true);
    if (no) return reject(no, no === 421 ? 'Misdirected Request' : 'Forbidden');
    const who = this.pairing.check(readCookie(req.headers.cookie, COOKIE));
    if (!who) return reject(401, 'Unauthorized');
    if (this.pages.size >= MAX_PAGES) return reject(503, 'Service Unavailable');
    this.wss.handleUpgrade(req, sock, head, (ws) => {
      const page = new LivePage(ws, who, this.host, req.socket.remoteAddress ?? '', this.wide);
      this.pages.add(page);
      // The other sessions and machines are asked only while some page is open.
      this.wide.start();
      ws.on('close', () => {
        this.pages.delete(page);
        if (this.pages.size === 0) this.wide.stop();
      });
      page.herd(this.wide.rows(), this.wide.sources());
      for (const a of this.asks.values()) page.ask(a);
    });
  }
}
