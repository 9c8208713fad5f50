// Runs a governed command in this terminal: stdio inherited, signals passed on, its exit status returned.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';

export interface ForegroundResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Could not start (ENOENT, EACCES...). */
  error?: { code?: string; message: string };
  durationMs: number;
}

/** Signals the terminal driver sends to the whole foreground process group, which the child is part of. */
const TTY_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGQUIT', 'SIGWINCH'];
const ALWAYS: NodeJS.Signals[] = ['SIGTERM', 'SIGHUP'];

/**
 * Spawns argv with inherited stdio in our process group. SIGTERM/SIGHUP sent to castellan are passed on.
 * SIGINT/SIGQUIT/SIGWINCH are passed on only when stdin is not a terminal: from a terminal the child
 * already got them (it shares our foreground group), and a second Ctrl-C would mean something else to
 * an agent. While the child runs castellan itself never dies of them, so it can report the exit.
 */
export function runForeground(argv: readonly string[], opts: { cwd: string; env: NodeJS.ProcessEnv }): Promise<ForegroundResult> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(argv[0], argv.slice(1), { cwd: opts.cwd, env: opts.env, stdio: 'inherit' });
    const tty = !!process.stdin.isTTY;
    const handlers = new Map<NodeJS.Signals, () => void>();
    for (const sig of [...ALWAYS, ...TTY_SIGNALS]) {
      const forward = ALWAYS.includes(sig) || !tty;
      const h = () => {
        if (forward && child.exitCode === null && child.signalCode === null) {
          try {
            child.kill(sig);
          } catch {
            /* gone */
          }
        }
      };
      handlers.set(sig, h);
      process.on(sig, h);
    }
    let done = false;
    const finish = (r: Omit<ForegroundResult, 'durationMs'>) => {
      if (done) return;
      done = true;
      for (const [sig, h] of handlers) process.off(sig, h);
      resolve({ ...r, durationMs: Math.round(performance.now() - started) });
    };
    child.on('error', (e: NodeJS.ErrnoException) => finish({ code: null, signal: null, error: { code: e.code, message: e.message } }));
    child.on('exit', (code, signal) => finish({ code, signal }));
  });
}

/** The shell convention: the code, 128+N for signal N, 127 not found, 126 not executable. */
export function exitStatus(r: Pick<ForegroundResult, 'code' | 'signal' | 'error'>): number {
  if (r.error) return r.error.code === 'ENOENT' ? 127 : 126;
  if (r.code !== null) return r.code;
  const n = r.signal ? constants.signals[r.signal] : undefined;
  return n ? 128 + n : 1;
}

/** `ok`, `failed`, `killed` or `error`: the SessionEnd status of a finished run. */
export function sessionStatus(r: Pick<ForegroundResult, 'code' | 'signal' | 'error'>): 'ok' | 'failed' | 'killed' | 'error' {
  if (r.error) return 'error';
  if (r.code === 0) return 'ok';
  return r.code === null && r.signal ? 'killed' : 'failed';
}
