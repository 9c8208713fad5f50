// Starting a castellan server (foreground, in a child we own), attaching real clients in ptys, and stopping it all.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { track } from './cleanup.js';
import type { BenchEnv } from './env.js';
import { Ndjson } from './ndjson.js';
import { serverNodeFlags } from '../../src/server/node-flags.js';
import { alive, killPid, waitGone } from './proc.js';
import { TermClient } from './term-client.js';
import { sleep, waitUntil } from './util.js';

export interface PaneInfo {
  pane_id: string;
  window_id: string;
  pid?: number;
  command: string[];
  focused: boolean;
  cols: number;
  rows: number;
  exited?: unknown;
}

export class CastellanServer {
  readonly clients: TermClient[] = [];
  private panePids = new Set<number>();
  private untrack: () => void = () => {};
  private stopped = false;

  private constructor(
    private readonly b: BenchEnv,
    readonly child: ChildProcess,
    readonly api: Ndjson,
    readonly socket: string,
    readonly home: string,
    readonly logFile: string,
  ) {}

  get pid(): number {
    return this.child.pid!;
  }

  /** Starts `castellan server start --foreground` with a window of cols x rows (pane = cols-2 x rows-2 inside its border). */
  /** `config`: the user config file's text (~/.castellan/config.toml of the server's own HOME). */
  static async start(b: BenchEnv, o: { cols: number; rows: number; command: string[]; profile?: boolean; nodeFlags?: string[]; config?: string }): Promise<CastellanServer> {
    const id = b.nextId();
    const home = join(b.tmp, `c${id}`);
    mkdirSync(home, { recursive: true });
    if (o.config !== undefined) {
      mkdirSync(join(home, '.castellan'), { recursive: true });
      writeFileSync(join(home, '.castellan', 'config.toml'), o.config);
    }
    const socket = join(home, 's.sock');
    const env = { ...b.env, HOME: home, XDG_STATE_HOME: join(home, 'state'), XDG_CONFIG_HOME: join(home, 'config'), CASTELLAN_SOCKET: socket };
    const logFile = join(home, 'server.out');
    const fd = openSync(logFile, 'a');
    const nodeArgs = o.profile ? ['--cpu-prof', '--cpu-prof-dir', b.profDir, '--cpu-prof-name', `server-${process.pid}-${id}.cpuprofile`] : [];
    // Started as the daemon starts a server (its Node flags; CASTELLAN_SERVER_NODE_FLAGS= for Node's defaults), unless
    // a probe gives its own (an A/B of flags, --trace-gc, --import of a heap probe).
    const args = [...(o.nodeFlags ?? serverNodeFlags(process.env)), ...nodeArgs, join(b.root, 'bin', 'castellan.js'), 'server', 'start', '--foreground', '--cols', String(o.cols), '--rows', String(o.rows), '--', ...o.command];
    const child = spawn(process.execPath, args, { cwd: home, env, stdio: ['ignore', fd, fd], detached: true });
    closeSync(fd);
    // Tracked before it answers, so a failed start is cleaned up too.
    const early: { api?: Ndjson } = {};
    const pre = track({
      name: 'castellan-starting',
      close: async () => {
        early.api?.close();
        killPid(child.pid, 'SIGKILL');
      },
      killSync: () => killPid(child.pid, 'SIGKILL'),
    });
    let exitCode: number | null | undefined;
    child.on('exit', (c) => (exitCode = c));
    try {
      const api = await waitUntil(
        async () => {
          if (exitCode !== undefined) throw new Error(`castellan server exited with ${exitCode}: ${readFileSync(logFile, 'utf8').slice(-2000)}`);
          return Ndjson.connect(socket, 500).catch(() => undefined);
        },
        'the castellan server socket',
        15_000,
        30,
      );
      early.api = api;
      const s = new CastellanServer(b, child, api, socket, home, logFile);
      pre();
      s.untrack = track({ name: 'castellan', close: () => s.stop(), killSync: () => s.killSync() });
      await s.notePanes();
      return s;
    } catch (e) {
      pre();
      early.api?.close();
      killPid(child.pid, 'SIGKILL');
      throw e;
    }
  }

  async panes(): Promise<PaneInfo[]> {
    return (await this.api.request<{ panes: PaneInfo[] }>('pane.list', {})).panes;
  }

  /** Remembers pane pids, so stop() can be sure their programs are gone. */
  async notePanes(): Promise<PaneInfo[]> {
    const ps = await this.panes();
    for (const p of ps) if (p.pid) this.panePids.add(p.pid);
    return ps;
  }

  /** Runs `castellan` (attach) in a pty of cols x rows and waits until it drew its first frame and went quiet. */
  async attach(cols: number, rows: number, opts: { profile?: boolean } = {}): Promise<TermClient> {
    const env = { ...this.b.env, HOME: this.home, XDG_STATE_HOME: join(this.home, 'state'), XDG_CONFIG_HOME: join(this.home, 'config'), CASTELLAN_SOCKET: this.socket };
    const nodeArgs = opts.profile ? ['--cpu-prof', '--cpu-prof-dir', this.b.profDir, '--cpu-prof-name', `client-${process.pid}-${this.b.nextId()}.cpuprofile`] : [];
    const c = new TermClient(process.execPath, [...nodeArgs, join(this.b.root, 'bin', 'castellan.js')], { cols, rows, env, cwd: this.home });
    this.clients.push(c);
    await waitUntil(() => c.syncFrames > 0 || c.exitCode !== undefined, 'the castellan client to draw', 15_000);
    if (c.exitCode !== undefined) throw new Error(`castellan client exited (${c.exitCode}): ${JSON.stringify(c.firstOutput.slice(0, 500))}`);
    await c.settle(300, 4000);
    return c;
  }

  /** A second connection subscribed to events; resolves `waitEvent` promises with the arrival time. */
  async subscribe(types: string[]): Promise<{ next(pred: (e: Record<string, unknown>) => boolean, timeoutMs: number): Promise<number>; close(): void }> {
    const conn = await Ndjson.connect(this.socket);
    const waiters: Array<{ pred: (e: Record<string, unknown>) => boolean; resolve(at: number): void }> = [];
    conn.onMessage((m, at) => {
      const e = m.event as Record<string, unknown> | undefined;
      if (!e) return;
      for (const w of [...waiters]) if (w.pred(e)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(at);
      }
    });
    await conn.request('events.subscribe', { types });
    return {
      next: (pred, timeoutMs) =>
        new Promise<number>((resolve) => {
          const t = setTimeout(() => resolve(NaN), timeoutMs);
          waiters.push({ pred, resolve: (at) => { clearTimeout(t); resolve(at); } });
        }),
      close: () => conn.close(),
    };
  }

  /**
   * Polls pane.read (last few screen lines) until `needle` shows up; resolves with the reply's arrival time
   * (at most everyMs after the server parsed it), NaN on timeout. A few lines cost the server ~tens of µs per poll.
   */
  async pollScreen(paneId: string, needle: string, everyMs: number, timeoutMs: number): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const r = await this.api.request<{ text: string }>('pane.read', { pane_id: paneId, lines: 4 });
      const at = performance.now();
      if (r.text.includes(needle)) return at;
      await sleep(everyMs);
    }
    return NaN;
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    try {
      await this.notePanes();
    } catch {
      /* server may be gone */
    }
    try {
      await this.api.request('server.stop', {}, 3000);
    } catch {
      /* stopping anyway */
    }
    this.api.close();
    if (!(await waitGone(this.pid, 4000))) killPid(this.pid, 'SIGKILL');
    await Promise.all(this.clients.map((c) => c.close()));
    await sleep(50);
    for (const p of this.panePids) if (alive(p)) killPid(p, 'SIGKILL');
    this.untrack();
  }

  private killSync(): void {
    killPid(this.pid, 'SIGKILL');
    for (const c of this.clients) c.kill('SIGKILL');
    for (const p of this.panePids) killPid(p, 'SIGKILL');
  }
}
