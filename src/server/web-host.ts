// The session's side of the web view: starts src/web on request (web.* methods) and gives it the session through WebHost.
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { WebStartOptions } from '../api/context.js';
import { appendAudit } from '../hooks/audit.js';
import type { StampedEvent } from '../core/events.js';
import type { State } from '../core/types.js';
import type { Config } from '../config/schema.js';
import { carryOut, feedPane, forgetSessions, herdOf, startWeb, type Action, type Peer, type WebHost, type WebServer, type WebSettings, type WebStatus } from '../web/index.js';
import { sessionOfSocket, socketFor, type Paths } from '../platform/paths.js';
import { RpcClient } from '../platform/rpc-client.js';
import type { PaneRuntime } from './pane-runtime.js';
import type { ServerSession, SessionOptions } from './session.js';

/** What the session lends the web view. */
export interface WebSessionSide {
  session: string;
  version: string;
  auditLog: string;
  paths: Paths;
  env: NodeJS.ProcessEnv;
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

/** A local session's socket has this long to accept a connection. */
const LOCAL_CONNECT_MS = 1500;
/** A machine has this long from ssh's start to its bridge's hello (the page shows its last rows, stale, meanwhile). */
const MACHINE_CONNECT_MS = 10_000;

export class WebControl {
  private web: WebServer | undefined;
  private starting: Promise<WebServer> | undefined;
  /** Panes of this session another server's page has open (web.view): counted as watched, as this server's own pages. */
  private readonly viewed = new Map<string, number>();

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
    const w = this.web?.watched() ?? new Set<string>();
    for (const p of this.viewed.keys()) w.add(p);
    return w;
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
      sessionsFile: this.sessionsFile(),
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
    const side = this.side();
    const n = this.web?.pairing.revoke() ?? 0;
    // Not serving: the sessions a restart would bring back are forgotten all the same.
    if (!this.web) forgetSessions({ file: this.sessionsFile(), log: (m) => side.log(`web: ${m}`) });
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

  /** Browser sessions kept across restarts (hashes only): one file per session serving a page. */
  private sessionsFile(): string {
    const side = this.side();
    return join(side.paths.stateDir, `web-sessions-${side.session}.json`);
  }

  /** The herd's rows of this session, for another server's page (web.herd). */
  async herd(): Promise<{ session: string; rows: unknown[] }> {
    return { session: this.side().session, rows: await herdOf(this.side().state()) };
  }

  /** Streams a pane to another server's page (web.view): the first screen now, frames through `push`; returns the stop. */
  async view(pane: string, push: (msg: unknown) => boolean): Promise<{ first: unknown; stop: () => void }> {
    const screen = this.host().screen(pane);
    if (!screen) throw new Error(`no pane ${pane}`);
    let first: unknown;
    let slow = false;
    const stopFeed = await feedPane(screen, pane, {
      send: (m) => {
        if (first === undefined) first = m;
        else slow = !push(m);
      },
      // The connection said it is behind: the next frame waits a period (changes merge into it meanwhile).
      slow: () => {
        const was = slow;
        slow = false;
        return was;
      },
    });
    this.viewed.set(pane, (this.viewed.get(pane) ?? 0) + 1);
    let stopped = false;
    return {
      first,
      stop: () => {
        if (stopped) return;
        stopped = true;
        stopFeed();
        const n = (this.viewed.get(pane) ?? 1) - 1;
        if (n > 0) this.viewed.set(pane, n);
        else this.viewed.delete(pane);
      },
    };
  }

  /** An action from another server's page on a pane of this session: carried out and audited here. */
  async act(p: { browser_session: string; remote: string; via: string } & Action): Promise<void> {
    const { browser_session, remote, via, ...action } = p;
    const host = this.host();
    await carryOut(host, { browser_session, remote, via }, action as Action, (e) => host.log(`web: ${e.message}`));
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
          top: () => {
            if (s.modes.alternateScreen) return undefined;
            const v = s.normalLines();
            return v.first + v.screenTop;
          },
          range: (from, to) => {
            const first = s.normalLines().first;
            return s.readRange(from - first, to - first, true);
          },
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
      peers: () => findPeers(side),
    };
  }
}

/**
 * The other sessions of this machine (their sockets in this user's socket directory: the CLI's own way to them, with
 * the same trust) and the sessions of the enabled machines in the profiles (through src/machines, over ssh).
 */
async function findPeers(side: WebSessionSide): Promise<Peer[]> {
  const peers: Peer[] = [];
  const dir = side.paths.socketDir;
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    /* no socket directory: no other session */
  }
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  for (const n of names.sort()) {
    const session = sessionOfSocket(n);
    if (!session || session === side.session) continue;
    const socket = socketFor(dir, session);
    try {
      const st = lstatSync(socket);
      // Only a socket of this user's: a file or link put there cannot send the page anywhere else.
      if (!st.isSocket() || (uid !== undefined && st.uid !== uid)) continue;
    } catch {
      continue;
    }
    peers.push({ session, connectMs: LOCAL_CONNECT_MS, connect: () => RpcClient.connect(socket, LOCAL_CONNECT_MS) });
  }
  let profiles: Array<{ name: string; session?: string; disabled?: boolean }> = [];
  try {
    lstatSync(side.paths.machinesFile);
  } catch {
    return peers;
  }
  // The machines room (profiles, ssh) loads only when there are machines.
  const m = await import('../machines/index.js');
  try {
    profiles = m.readProfiles(side.paths.machinesFile);
  } catch (e) {
    side.log(`web: machines not shown: ${(e as Error).message}`);
    return peers;
  }
  const ctx = { paths: side.paths, env: side.env, connect: () => RpcClient.connect(side.paths.socket) };
  for (const p of profiles) {
    if (p.disabled) continue;
    peers.push({ machine: p.name, session: p.session ?? 'default', connectMs: MACHINE_CONNECT_MS + 1000, connect: async () => (await m.openMachine(ctx, p as Parameters<typeof m.openMachine>[1], { deadlineMs: MACHINE_CONNECT_MS })).client });
  }
  return peers;
}

/** The session's parts the web view uses, read when the page's server starts (not while the session is still being built). */
export function webSide(s: ServerSession, o: SessionOptions): WebSessionSide {
  return {
    session: s.session,
    version: s.version,
    auditLog: o.paths.auditLog,
    paths: o.paths,
    env: process.env,
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
