// The processes the portable backend starts (ps, lsof) are started by a small shell of its own, one per tool, that
// reads one command a line and runs it. Starting a process from the server costs its main thread even from a worker:
// on Linux, libuv forks the whole process, and every page the main thread writes afterwards takes a copy-on-write
// fault. Measured on a 74 MB process writing its pages, with a process started every 50 ms: main-thread p99
// event-loop delay 1.2 ms with none, 32-35 ms started from a worker, 1.8 ms through the shell (whose own forks are of
// a 1 MB process); the same process not writing its pages read 3.2 ms from a worker. macOS's libuv uses posix_spawn, which does not copy; the shell is the same path everywhere, so CI runs what a Mac runs.
//
// A shell runs one command at a time, in the order asked. Each answer ends with a line only this process can write
// (a random mark, the question's number, the exit status). A command past its timeout or its output limit kills the
// shell's process group; the next question starts a new one. The shell ends when its stdin closes (this process gone)
// or after a minute of nothing to do, and never keeps this process alive.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';

export interface RunOptions {
  env: NodeJS.ProcessEnv;
  timeout: number;
  maxBuffer: number;
}

/** What a run gives: its output, or the error's code (ENOENT: the tool is not installed) and no output. */
export interface RunResult {
  stdout?: string;
  code?: string;
}

/**
 * The helper. Its first line is the mark (on stdin, not argv: a `ps` it runs lists its argv); every line after is the
 * question's number, then the command and its arguments, tab-separated. The command's stdin is /dev/null, not ours.
 */
const HELPER = `IFS= read -r mark || exit
while IFS= read -r line; do
  set -f; IFS='\t'; set -- $line; IFS=' \t
'; set +f
  id=$1; shift
  "$@" </dev/null 2>/dev/null
  printf '\\n%s %s %s\\n' "$mark" "$id" "$?"
done`;

/** The shell ends after this long with nothing asked (ms); the next question starts it again. */
const IDLE_MS = 60_000;

/**
 * A tool that ran and exited non-zero still answered (ps -p and lsof -p exit 1 when a pid asked about is gone), as
 * spawnSync's answer is; no answer only when it could not start, was killed at its timeout or said too much.
 */
function answer(err: { code?: unknown; killed?: boolean } | null | undefined, stdout: string): RunResult {
  return !err || (typeof err.code === 'number' && !err.killed) ? { stdout } : { code: String(err.code ?? 'failed') };
}

/** What the shell's exit status says: 127 and 126 are the shell's own "not found" and "cannot run". */
const statusCode = (status: number): number | string => (status === 127 ? 'ENOENT' : status === 126 ? 'EACCES' : status);

interface Question {
  id: number;
  cmd: string;
  line: string;
  opts: RunOptions;
  done(r: RunResult): void;
  retried?: boolean;
}

class Helper {
  readonly child: ChildProcess;
  private readonly mark = randomBytes(16).toString('hex');
  private readonly queue: Question[] = [];
  /** The question the shell runs now, its output so far, and the line that ends its answer (up to the status). */
  private current: { q: Question; out: Buffer; tail: Buffer; timer: NodeJS.Timeout } | undefined;
  private idle: NodeJS.Timeout | undefined;
  private gone = false;

  constructor(env: NodeJS.ProcessEnv, private readonly onGone: (h: Helper) => void) {
    // Its own process group, so a command past its time dies with the shell that runs it.
    this.child = spawn('/bin/sh', ['-c', HELPER, 'castellan-tools'], { env, stdio: ['pipe', 'pipe', 'ignore'], detached: true });
    this.child.on('error', () => {
      cannotStart = true;
      this.end('EHELPER');
    });
    this.child.on('exit', () => this.end('EHELPER'));
    this.child.stdin!.on('error', () => this.end('EHELPER'));
    this.child.stdout!.on('data', (d: Buffer) => this.read(d));
    this.child.stdin!.write(`${this.mark}\n`);
    this.hold(false);
  }

  ask(q: Question): void {
    this.queue.push(q);
    this.next();
  }

  private next(): void {
    if (this.current || this.gone) return;
    const q = this.queue.shift();
    if (!q) {
      this.hold(false);
      this.idle ??= setTimeout(() => this.child.stdin!.end(), IDLE_MS).unref();
      return;
    }
    this.hold(true);
    if (this.idle) clearTimeout(this.idle);
    this.idle = undefined;
    const timer = setTimeout(() => this.kill('ETIMEDOUT'), q.opts.timeout);
    this.current = { q, out: Buffer.alloc(0), tail: Buffer.from(`\n${this.mark} ${q.id} `), timer };
    this.child.stdin!.write(`${q.id}\t${q.line}\n`);
  }

  private read(d: Buffer): void {
    const c = this.current;
    if (!c) return this.kill('EHELPER'); // output nobody asked for: not ours to trust
    const all = (c.out = c.out.length ? Buffer.concat([c.out, d]) : d);
    const tail = c.tail;
    const at = all.indexOf(tail);
    if (at < 0) {
      if (all.length > c.q.opts.maxBuffer + tail.length + 8) this.kill('ENOBUFS');
      return;
    }
    const end = all.indexOf(10, at + tail.length);
    if (end < 0) return;
    const status = Number(all.subarray(at + tail.length, end).toString('latin1'));
    if (at > c.q.opts.maxBuffer) return this.kill('ENOBUFS');
    clearTimeout(c.timer);
    this.current = undefined;
    c.q.done(answer({ code: statusCode(status) }, all.subarray(0, at).toString('utf8')));
    if (end + 1 < all.length) return this.kill('EHELPER');
    this.next();
  }

  /** Ends the shell and whatever it runs; the question in hand gets no answer, the rest go to a new shell. */
  private kill(code: string): void {
    try {
      process.kill(-this.child.pid!, 'SIGKILL');
    } catch {
      /* already gone */
    }
    this.end(code);
  }

  private end(code: string): void {
    if (this.gone) return;
    this.gone = true;
    if (this.idle) clearTimeout(this.idle);
    const c = this.current;
    this.current = undefined;
    if (c) {
      clearTimeout(c.timer);
      c.q.done({ code });
    }
    this.child.stdin!.destroy();
    this.child.stdout!.destroy();
    this.onGone(this);
    // The questions still waiting go to a new shell, once: a shell that keeps dying gives no answers, not a loop.
    for (const q of this.queue.splice(0)) {
      if (q.retried) q.done({ code });
      else ask({ ...q, retried: true });
    }
  }

  /** Only a question on its way keeps this process alive. */
  private hold(on: boolean): void {
    for (const h of [this.child, this.child.stdin, this.child.stdout] as Array<{ ref?(): void; unref?(): void } | null>) {
      if (on) h?.ref?.();
      else h?.unref?.();
    }
  }
}

/**
 * One shell per tool (and environment asked with; the portable backend passes one): an `lsof` stuck on a dead mount
 * until its timeout holds up the next `lsof`, not the `ps` that detection waits on. None where a shell cannot start.
 */
const helpers = new Map<NodeJS.ProcessEnv, Map<string, Helper>>();
let cannotStart = false;
let nextId = 0;

/** A command and arguments the helper's line carries whole: no tab, newline or NUL, no empty argument. */
const carriable = (parts: string[]) => parts.every((p) => p.length > 0 && !/[\t\n\r\0]/.test(p));

/**
 * Runs `cmd` off this thread, through the helper shell, and gives its output. A command the line cannot carry, or a
 * process where the shell cannot start, starts it directly (a fork of this process, as before).
 */
export function runOffThread(cmd: string, args: string[], opts: RunOptions): Promise<RunResult> {
  return new Promise((resolve) => {
    if (cannotStart || !carriable([cmd, ...args])) {
      execFile(cmd, args, { ...opts, encoding: 'utf8' }, (err, stdout) => resolve(answer(err, stdout)));
      return;
    }
    ask({ id: ++nextId, cmd, line: [cmd, ...args].join('\t'), opts, done: resolve });
  });
}

function ask(q: Question): void {
  const mine = helpers.get(q.opts.env) ?? new Map<string, Helper>();
  helpers.set(q.opts.env, mine);
  let h = mine.get(q.cmd);
  if (!h) {
    try {
      h = new Helper(q.opts.env, (gone) => {
        if (mine.get(q.cmd) === gone) mine.delete(q.cmd);
      });
    } catch {
      cannotStart = true;
      return q.done({ code: 'EHELPER' });
    }
    mine.set(q.cmd, h);
  }
  h.ask(q);
}
