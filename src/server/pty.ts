// The only node-pty import: spawning pane programs, with tail-safe exit, no leaked fds, and a kill that ends the pane's whole session.
import { closeSync, constants, openSync, readlinkSync, readSync } from 'node:fs';
import pty from '@lydell/node-pty';
import { foregroundPgid, processAlive } from '../platform/proc.js';
import { closeOnExec, closeOnExecAll } from './fd-cloexec.js';
import { endSessions, type Step } from './terminate.js';

/** Closing a pane: a hangup, then TERM, then KILL for whatever in its session ignored both. */
const CLOSE_STEPS: readonly Step[] = [
  { signal: 'SIGHUP', waitMs: 1000 },
  { signal: 'SIGTERM', waitMs: 1000 },
  { signal: 'SIGKILL', waitMs: 500 },
];

/** Told which pane programs (session leaders) this process runs: the crash reaper keeps the list. */
export interface PtyWatcher {
  started(pid: number): void;
  ended(pid: number): void;
}
const watchers = new Set<PtyWatcher>();
const running = new Set<number>();

/** Follows pane programs from now on (and is told of those already running); returns the unwatch function. */
export function watchPtys(w: PtyWatcher): () => void {
  watchers.add(w);
  for (const pid of running) w.started(pid);
  return () => watchers.delete(w);
}

function tell(pid: number, up: boolean): void {
  if (up === running.has(pid)) return;
  if (up) running.add(pid);
  else running.delete(pid);
  for (const w of watchers) up ? w.started(pid) : w.ended(pid);
}

export interface PtyExit {
  code: number | null;
  signal: number | null;
}

export interface PtyProcess {
  readonly pid: number;
  write(data: string | Buffer): void;
  resize(cols: number, rows: number): void;
  onData(cb: (data: Buffer) => void): void;
  onExit(cb: (e: PtyExit) => void): void;
  pause(): void;
  resume(): void;
  /** Name of the foreground process of the terminal (e.g. "vim", "claude"). */
  foregroundName(): string | undefined;
  /** Pid of the terminal's foreground process group leader, from /proc (Linux). */
  foregroundPid(): number | undefined;
  /** Current directory of the foreground process (for splits that open where you are). */
  cwd(): string | undefined;
  readonly exited: boolean;
  /** Ends every process in the pane's session: HUP, then TERM, then KILL (see CLOSE_STEPS). */
  kill(steps?: readonly Step[]): Promise<void>;
}

export interface SpawnOpts {
  command: string[];
  cwd: string;
  env: Record<string, string>;
  cols: number;
  rows: number;
}

/** The most drainBeforeDestroy reads (the kernel holds far less; this bounds a writer that never stops). */
const MAX_DRAIN = 4 * 1024 * 1024;

/**
 * node-pty destroys the pty's socket 200 ms after the child exits (we hold the slave open, so no EIO ends it
 * sooner), dropping whatever was not read yet: a busy or CPU-starved event loop runs that timer before it
 * polls the fd again. So the destroy first reads the rest: the stream's buffer (when paused), then the fd.
 */
function drainBeforeDestroy(p: pty.IPty, deliver: (chunk: Buffer) => void): void {
  const sock = (p as unknown as { _socket?: { destroy(...a: unknown[]): unknown; read(): unknown; readableLength: number } })._socket;
  const fd = (p as unknown as { fd?: number }).fd;
  if (!sock || typeof sock.destroy !== 'function' || typeof fd !== 'number') return;
  const destroy = sock.destroy.bind(sock);
  let drained = false;
  sock.destroy = (...a: unknown[]) => {
    if (drained) return destroy(...a);
    drained = true;
    try {
      // read() on a paused stream hands out its buffer through the usual 'data' listeners.
      while (sock.readableLength > 0 && sock.read() !== null);
      const buf = Buffer.allocUnsafe(64 * 1024);
      for (let total = 0; total < MAX_DRAIN; ) {
        const n = readSync(fd, buf, 0, buf.length, null);
        if (n <= 0) break;
        total += n;
        deliver(Buffer.from(buf.subarray(0, n)));
      }
    } catch {
      /* EAGAIN: nothing left; EIO: the terminal is gone */
    }
    return destroy(...a);
  };
}

export function spawnPty(o: SpawnOpts): PtyProcess {
  const [file, ...args] = o.command;
  // forkpty passes every fd without FD_CLOEXEC to the program: mark them all first (earlier masters, fds the server
  // inherited), and the new master right after, before anything else can fork.
  closeOnExecAll();
  const p = pty.spawn(file, args, { name: 'xterm-256color', cols: o.cols, rows: o.rows, cwd: o.cwd, env: o.env, encoding: null });
  closeOnExec((p as unknown as { fd: number }).fd);
  tell(p.pid, true);
  // Holding the slave side open stops Linux from discarding the last KBs a child writes just before it exits
  // (node-pty 1.1 loses them otherwise); we close it once node-pty reports the exit.
  let slave = -1;
  try {
    slave = openSync((p as unknown as { ptsName: string }).ptsName, constants.O_RDWR | constants.O_NOCTTY);
  } catch {
    slave = -1;
  }
  let exited = false;
  let killing: Promise<void> | undefined;
  let paused = false;
  let watch: NodeJS.Timeout | undefined;
  const exitCbs: Array<(e: PtyExit) => void> = [];
  const dataCbs: Array<(data: Buffer) => void> = [];
  p.onData((d) => {
    for (const cb of dataCbs) cb(d as unknown as Buffer);
  });
  drainBeforeDestroy(p, (chunk) => {
    for (const cb of dataCbs) cb(chunk);
  });
  p.onExit(({ exitCode, signal }) => {
    exited = true;
    if (watch) clearInterval(watch);
    if (slave >= 0) {
      try {
        closeSync(slave);
      } catch {
        /* already closed */
      }
      slave = -1;
    }
    // While a kill is under way the rest of the session may still be running: the reaper keeps the pid until it is done.
    if (!killing) tell(p.pid, false);
    const e: PtyExit = { code: signal ? null : exitCode, signal: signal || null };
    for (const cb of exitCbs) cb(e);
  });
  const self: PtyProcess = {
    pid: p.pid,
    get exited() {
      return exited;
    },
    write(data) {
      if (!exited) p.write(data as string);
    },
    resize(cols, rows) {
      if (exited) return;
      try {
        p.resize(Math.max(1, cols), Math.max(1, rows));
      } catch {
        /* the pty may close between the check and the call */
      }
    },
    onData(cb) {
      dataCbs.push(cb);
    },
    onExit(cb) {
      exitCbs.push(cb);
    },
    pause() {
      if (paused || exited) return;
      paused = true;
      p.pause();
      // node-pty destroys the pty socket 200 ms after the child exits; a paused socket would lose its tail.
      // While paused, watch for the child's death and resume at once so the rest is read in time.
      watch = setInterval(() => {
        if (!processAlive(p.pid)) self.resume();
      }, 20);
      watch.unref();
    },
    resume() {
      if (watch) clearInterval(watch);
      watch = undefined;
      if (!paused) return;
      paused = false;
      p.resume();
    },
    foregroundName() {
      try {
        return p.process;
      } catch {
        return undefined;
      }
    },
    foregroundPid() {
      return foregroundPgid(p.pid);
    },
    cwd() {
      const pid = self.foregroundPid() ?? p.pid;
      try {
        return readlinkSync(`/proc/${pid}/cwd`);
      } catch {
        try {
          return readlinkSync(`/proc/${p.pid}/cwd`);
        } catch {
          return undefined;
        }
      }
    },
    kill(steps = CLOSE_STEPS) {
      if (exited) return Promise.resolve();
      killing ??= endSessions([p.pid], steps).then(
        () => tell(p.pid, false),
        () => tell(p.pid, false),
      );
      return killing;
    },
  };
  return self;
}
