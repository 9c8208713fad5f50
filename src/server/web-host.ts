// The session's side of the web view: starts src/web on request (web.* methods) and gives it the session through WebHost.
import type { WebStartOptions } from '../api/context.js';
import { appendAudit } from '../hooks/audit.js';
import type { StampedEvent } from '../core/events.js';
import type { State } from '../core/types.js';
import type { Config } from '../config/schema.js';
import { startWeb, type WebHost, type WebServer, type WebSettings, type WebStatus } from '../web/index.js';
import type { PaneRuntime } from './pane-runtime.js';
import type { ServerSession, SessionOptions } from './session.js';

/** What the session lends the web view. */
export interface WebSessionSide {
  session: string;
  version: string;
  auditLog: string;
  config(): Config;
  state(): State;
  listen(cb: (e: StampedEvent) => void): () => void;
  pane(id: string): PaneRuntime | undefined;
  writePane(pane: string, data: string, opts?: { paste?: boolean }): void;
  agentPrompt?(p: { paneId: string; text: string }): Promise<{ sent: boolean; reason?: string }>;
  /** A governance question's answer (the session's Asks: the first answer wins). */
  answerAsk(id: string, answer: 'allow' | 'deny'): boolean;
  emit(e: { type: string; [k: string]: unknown }): void;
  log(msg: string): void;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

export class WebControl {
  private web: WebServer | undefined;
  private starting: Promise<WebServer> | undefined;

  constructor(private readonly side: () => WebSessionSide) {}

  status(): WebStatus {
    return this.web?.status() ?? { running: false, sessions: 0, pending: 0, pages: 0 };
  }

  /** Pages open now: a governance question waits for them as it waits for attached clients. */
  pages(): number {
    return this.web?.status().pages ?? 0;
  }

  /** A governance question (or its end) as the session tells attached clients: pages get it too. */
  asked(msg: unknown): void {
    this.web?.asked(msg);
  }

  /** Panes a page has open (src/notify does not ping about what someone is looking at). */
  watched(): Set<string> {
    return this.web?.watched() ?? new Set();
  }

  async start(p: WebStartOptions = {}): Promise<WebStatus> {
    if (this.web) {
      // Already serving: settings asked for now would need a stop first; say so rather than ignore them.
      const cur = this.web.settings;
      const differs = (p.bind !== undefined && p.bind !== cur.bind) || (p.port !== undefined && p.port !== 0 && p.port !== this.web.status().port) || (p.tls_cert !== undefined && p.tls_cert !== cur.tlsCert);
      return { ...this.web.status(), ...(differs ? { note: 'already serving with other settings; castellan web --stop first to change them' } : {}) };
    }
    const c = this.side().config().web;
    const s: WebSettings = {
      bind: p.bind ?? c.bind,
      port: p.port ?? c.port,
      readOnly: p.read_only ?? c.read_only,
      hosts: c.hosts,
      ...((p.tls_cert ?? c.tls_cert) ? { tlsCert: p.tls_cert ?? c.tls_cert } : {}),
      ...((p.tls_key ?? c.tls_key) ? { tlsKey: p.tls_key ?? c.tls_key } : {}),
      allowRemote: p.allow_remote ?? c.allow_remote,
    };
    this.starting ??= startWeb(s, this.host());
    try {
      this.web = await this.starting;
    } finally {
      this.starting = undefined;
    }
    this.side().log(`web: serving ${this.web.url}`);
    return this.web.status();
  }

  async pair(p: { read_only?: boolean } & WebStartOptions): Promise<{ url: string; expires: number; read_only: boolean }> {
    await this.start(p);
    return this.web!.pair(p.read_only ?? false);
  }

  revoke(): { sessions: number } {
    const n = this.web?.pairing.revoke() ?? 0;
    const side = this.side();
    appendAudit(side.auditLog, { kind: 'web', action: 'revoke', sessions: n });
    side.emit({ type: 'web_action', kind: 'web', action: 'revoke', sessions: n });
    return { sessions: n };
  }

  async stop(): Promise<{ stopped: boolean }> {
    const w = this.web;
    this.web = undefined;
    if (!w) return { stopped: false };
    await w.stop();
    return { stopped: true };
  }

  private host(): WebHost {
    const side = this.side();
    return {
      session: side.session,
      version: side.version,
      state: () => side.state(),
      onEvent: (cb) => side.listen((e) => cb(e as unknown as { type: string; pane?: string })),
      screen: (id) => {
        const rt = side.pane(id);
        if (!rt || !side.state().panes[id]) return undefined;
        const s = rt.screen;
        return {
          get cols() { return s.cols; },
          get rows() { return s.rows; },
          viewportRows: () => s.viewportRows(),
          history: (max) => {
            const n = Math.max(0, s.lineCount() - s.rows);
            return s.readRange(Math.max(0, n - max), n, true);
          },
          cursor: () => s.cursor(),
          onChange: (cb) => s.onWriteParsed(cb),
        };
      },
      write: (pane, data) => side.writePane(pane, data),
      prompt: async (pane, text) => {
        if (side.agentPrompt) {
          try {
            return await side.agentPrompt({ paneId: pane, text });
          } catch (e) {
            // Not an agent castellan started: typed as the person would.
            if (!/no castellan agent/.test((e as Error).message)) throw e;
          }
        }
        side.writePane(pane, text, { paste: true });
        await sleep(150);
        side.writePane(pane, '\r');
        return { sent: true };
      },
      answerAsk: (id, answer) => side.answerAsk(id, answer),
      audit: (record) => {
        const problem = appendAudit(side.auditLog, record);
        if (problem) side.log(`web: ${problem}`);
        side.emit({ type: 'web_action', ...record });
      },
      log: (msg) => side.log(msg),
    };
  }
}

/** The session's parts the web view uses, read when the page's server starts (not while the session is still being built). */
export function webSide(s: ServerSession, o: SessionOptions): WebSessionSide {
  return {
    session: s.session,
    version: s.version,
    auditLog: o.paths.auditLog,
    config: () => s.config.value,
    state: () => s.state(),
    // Internal listeners: the page is not a `ping` subscriber that scripts and waits count on.
    listen: (cb) => {
      s.internalListeners.add(cb);
      return () => void s.internalListeners.delete(cb);
    },
    pane: (id) => s.pane(id),
    writePane: (pane, data, opts) => s.writePane(pane, data, opts),
    agentPrompt: (p) => s.agents.prompt(p),
    answerAsk: (id, answer) => s.answer(undefined, id, answer),
    emit: (e) => s.emit(e),
    log: o.log,
  };
}
