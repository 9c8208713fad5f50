// Starting a tmux 3.3a server on its own socket (-L bench-<pid>-<n>), attaching real clients in ptys, and killing it all.
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { tmuxKillServerSync, track } from './cleanup.js';
import type { BenchEnv } from './env.js';
import { alive, killPid, waitGone } from './proc.js';
import { TermClient } from './term-client.js';
import { now, sleep, waitUntil } from './util.js';

const run = promisify(execFile);

/** Same scrollback as castellan's default; everything else is tmux's default (status bar on, like castellan's). */
const CONF = 'set -g history-limit 10000\nset -g default-terminal "screen-256color"\n';

export class TmuxServer {
  readonly clients: TermClient[] = [];
  pid = 0;
  socketPath = '';
  private panePids = new Set<number>();
  private untrack: () => void = () => {};
  private stopped = false;

  private constructor(
    private readonly b: BenchEnv,
    readonly name: string,
    readonly conf: string,
    readonly home: string,
  ) {}

  /** `tmux new-session -d -x cols -y rows CMD` (CMD is a shell command string). */
  static async start(b: BenchEnv, o: { cols: number; rows: number; command: string | ((socketName: string) => string) }): Promise<TmuxServer> {
    const id = b.nextId();
    const home = join(b.tmp, `t${id}`);
    mkdirSync(home, { recursive: true });
    const conf = join(home, 'tmux.conf');
    writeFileSync(conf, CONF);
    const s = new TmuxServer(b, `bench-${process.pid}-${id}`, conf, home);
    s.untrack = track({ name: 'tmux', close: () => s.stop(), killSync: () => s.killSync() });
    const command = typeof o.command === 'function' ? o.command(s.name) : o.command;
    await s.cmd('new-session', '-d', '-s', 'b', '-x', String(o.cols), '-y', String(o.rows), command);
    const [pid, socketPath] = (await s.cmd('display-message', '-p', '#{pid} #{socket_path}')).trim().split(' ');
    s.pid = Number(pid);
    s.socketPath = socketPath;
    await s.notePanes();
    return s;
  }

  get env(): NodeJS.ProcessEnv {
    return { ...this.b.env, HOME: this.home };
  }

  async cmd(...args: string[]): Promise<string> {
    const r = await run('tmux', ['-L', this.name, '-f', this.conf, '-u', ...args], { env: this.env, cwd: this.home, timeout: 10_000 });
    return r.stdout;
  }

  /** A `tmux wait-for CHANNEL` client: resolves with the time it returned (the channel was signalled). */
  waitFor(channel: string): Promise<number> {
    return new Promise((resolve, reject) => {
      const c = spawn('tmux', ['-L', this.name, 'wait-for', channel], { env: this.env, stdio: 'ignore' });
      c.on('exit', (code) => (code === 0 ? resolve(now()) : reject(new Error(`tmux wait-for ${channel} exited ${code}`))));
      c.on('error', reject);
    });
  }

  async panes(): Promise<Array<{ id: string; pid: number; cols: number; rows: number }>> {
    const out = await this.cmd('list-panes', '-a', '-F', '#{pane_id} #{pane_pid} #{pane_width} #{pane_height}');
    return out.trim().split('\n').filter(Boolean).map((l) => {
      const [id, pid, w, h] = l.split(' ');
      return { id, pid: Number(pid), cols: Number(w), rows: Number(h) };
    });
  }

  async notePanes(): Promise<void> {
    for (const p of await this.panes()) this.panePids.add(p.pid);
  }

  /** `tmux attach` in a pty of cols x rows; waits until it drew and went quiet. */
  async attach(cols: number, rows: number): Promise<TermClient> {
    const c = new TermClient('tmux', ['-L', this.name, '-u', 'attach', '-t', 'b'], { cols, rows, env: this.env, cwd: this.home });
    this.clients.push(c);
    await waitUntil(() => c.bytes > 0 || c.exitCode !== undefined, 'the tmux client to draw', 10_000);
    if (c.exitCode !== undefined) throw new Error(`tmux client exited (${c.exitCode}): ${JSON.stringify(c.firstOutput.slice(0, 500))}`);
    await c.settle(300, 4000);
    return c;
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    try {
      await this.notePanes();
    } catch {
      /* gone */
    }
    try {
      await this.cmd('kill-server');
    } catch {
      /* already gone */
    }
    if (this.pid && !(await waitGone(this.pid, 3000))) killPid(this.pid, 'SIGKILL');
    await Promise.all(this.clients.map((c) => c.close()));
    await sleep(50);
    for (const p of this.panePids) if (alive(p)) killPid(p, 'SIGKILL');
    this.removeSocket();
    this.untrack();
  }

  /** tmux leaves its socket file behind after kill-server. */
  private removeSocket(): void {
    if (this.socketPath.includes(`/bench-${process.pid}-`)) rmSync(this.socketPath, { force: true });
  }

  private killSync(): void {
    tmuxKillServerSync(this.name);
    this.removeSocket();
    killPid(this.pid, 'SIGKILL');
    for (const c of this.clients) c.kill('SIGKILL');
    for (const p of this.panePids) killPid(p, 'SIGKILL');
  }
}
