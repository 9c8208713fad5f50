// The only node-pty import: spawning pane programs, with tail-safe exit, no leaked fds, and a kill that ends the pane's whole session.
import { closeSync, constants, openSync, readSync } from 'node:fs';
import pty from '@lydell/node-pty';
import { childAlive, foregroundPgid, foregroundPgidAsync, procBlocks, processCwd, processCwdAsync } from '../platform/proc/index.js';
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
  /** Pid of the terminal's foreground process group leader (src/platform/proc). */
  foregroundPid(): number | undefined;
  /** Current directory of the foreground process, read now (for splits that open where you are). */
  cwd(): string | undefined;
  /**
   * cwd for a listing: where asking starts a process (procBlocks: ps, lsof), the last one read, and a fresh one read
   * off the thread when that is over CWD_SOON_MS old (undefined before any).
   */
  cwdSoon(): string | undefined;
  /** cwd off the thread, read now (a split through the API) or at most `maxAgeMs` before (a snapshot). */
  cwdFresh(maxAgeMs?: number): Promise<string | undefined>;
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
 * After the child exits, how long the pty may take to report end-of-file (EIO) before what is left is read and it
 * is closed: only a process that outlived the child and still holds the terminal (a background job) makes it wait.
 */
const EXIT_DRAIN_MS = 40;
/** A listing's directory is read again off the thread when the last one is this old (procBlocks). */
const CWD_SOON_MS = 500;

/**
 * node-pty destroys the pty's socket 200 ms after the child exits, dropping whatever was not read yet: a busy or
 * CPU-starved event loop runs that timer before it polls the fd again. So the destroy first reads the rest: the
 * stream's buffer (when paused), then the fd.
 */
function drainBeforeDestroy(p: pty.IPty, deliver: (chunk: Buffer) => void): void {
  const sock = socketOf(p);
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

type PtySocket = { destroy(...a: unknown[]): unknown; read(): unknown; readableLength: number; destroyed?: boolean };
const socketOf = (p: pty.IPty) => (p as unknown as { _socket?: PtySocket })._socket;

/**
 * Calls `cb` as soon as node-pty learns the child exited, before its 200 ms wait for the pty to close: node-pty's
 * exit handler then (and only then) registers `once('close')` on the terminal, the only place it does.
 */
function onChildExit(p: pty.IPty, cb: () => void): void {
  const t = p as unknown as { once?: (ev: string, l: (...a: unknown[]) => void) => unknown };
  if (typeof t.once !== 'function') return;
  const once = t.once.bind(p);
  let told = false;
  t.once = (ev, l) => {
    if (ev === 'close' && !told) {
      told = true;
      queueMicrotask(cb);
    }
    return once(ev, l);
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
  // (node-pty 1.1 loses them otherwise); we close it as soon as the child exits (onChildExit below).
  let slave = -1;
  try {
    slave = openSync((p as unknown as { ptsName: string }).ptsName, constants.O_RDWR | constants.O_NOCTTY);
  } catch {
    slave = -1;
  }
  let exited = false;
  /** The last directory read off the thread (procBlocks), and that read while it runs. */
  let lastCwd: { at: number; cwd?: string } = { at: Number.NEGATIVE_INFINITY };
  let reading: Promise<void> | undefined;
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
  const closeSlave = () => {
    if (slave < 0) return;
    try {
      closeSync(slave);
    } catch {
      /* already closed */
    }
    slave = -1;
  };
  // The child is gone: let go of the slave, so the master reads what is left and then EIO, which closes it at once
  // (instead of node-pty's fixed 200 ms wait); if another process still holds the terminal, read the rest and close
  // after EXIT_DRAIN_MS.
  onChildExit(p, () => {
    closeSlave();
    self.resume();
    const bound = setTimeout(() => {
      const sock = socketOf(p);
      if (sock && !sock.destroyed) sock.destroy();
    }, EXIT_DRAIN_MS);
    bound.unref();
    exitCbs.push(() => clearTimeout(bound));
  });
  p.onExit(({ exitCode, signal }) => {
    exited = true;
    if (watch) clearInterval(watch);
    closeSlave();
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
        if (!childAlive(p.pid)) self.resume();
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
      // Asked now: an answer read before this (the shell may have moved since) will not do.
      const pid = self.foregroundPid() ?? p.pid;
      return processCwd(pid, 0) ?? (pid === p.pid ? undefined : processCwd(p.pid, 0));
    },
    cwdSoon() {
      if (!procBlocks()) return self.cwd();
      // An answer another pane's listing read lately will do: one lsof answers every pane of a `pane list`.
      if (!reading && Date.now() - lastCwd.at > CWD_SOON_MS) reading = self.cwdFresh(CWD_SOON_MS).then(() => undefined, () => undefined).finally(() => (reading = undefined));
      return lastCwd.cwd;
    },
    async cwdFresh(maxAgeMs = 0) {
      const pid = (await foregroundPgidAsync(p.pid)) ?? p.pid;
      const cwd = (await processCwdAsync(pid, maxAgeMs)) ?? (pid === p.pid ? undefined : await processCwdAsync(p.pid, maxAgeMs));
      lastCwd = { at: Date.now(), cwd };
      return cwd;
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
