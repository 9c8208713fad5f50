// Runs one git process and returns only once its output is all read: an answer cut short must never read as "nothing".
import { spawn } from 'node:child_process';

export interface GitRun {
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  /** Output past the cap was dropped (the caller treats the answer as incomplete). */
  truncated: boolean;
  timedOut: boolean;
  spawnError?: string;
}

const KILL_GRACE_MS = 2000;

/**
 * Why not hooks/run.ts: it settles once the process has exited (for hooks, whose background children may hold
 * the pipes forever) and then destroys the pipes, so output not yet read is dropped. Under load a git that printed
 * its answer came back with exit 0 and empty stdout: for `git status` or `git rev-list` that reads as "clean" or
 * "no commits", and prune would delete work. git leaves no children holding our pipes (castellan turns off the
 * fsmonitor daemon and auto gc), so this waits for 'close' (every pipe drained), bounded by the deadline.
 */
export function runGit(o: { args: string[]; cwd: string; env: Record<string, string>; timeoutMs: number; maxOutput: number; input?: string }): Promise<GitRun> {
  return new Promise((resolve) => {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let size = 0;
    let truncated = false;
    let timedOut = false;
    let settled = false;
    const keep = (into: Buffer[]) => (b: Buffer) => {
      if (size + b.length > o.maxOutput) {
        truncated = true;
        b = b.subarray(0, Math.max(0, o.maxOutput - size));
      }
      size += b.length;
      if (b.length) into.push(b);
    };
    const timers: NodeJS.Timeout[] = [];
    const done = (r: Omit<GitRun, 'stdout' | 'stderr' | 'truncated' | 'timedOut'>) => {
      if (settled) return;
      settled = true;
      timers.forEach(clearTimeout);
      resolve({ ...r, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), truncated, timedOut });
    };
    let child;
    try {
      child = spawn('git', o.args, { cwd: o.cwd, env: o.env, detached: true, stdio: [o.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    } catch (e) {
      return done({ exitCode: null, signal: null, spawnError: (e as Error).message });
    }
    const c = child;
    const killGroup = () => {
      try {
        if (c.pid) process.kill(-c.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    };
    c.stdout!.on('data', keep(out));
    c.stderr!.on('data', keep(err));
    c.on('error', (e) => done({ exitCode: null, signal: null, spawnError: e.message }));
    c.on('close', (code, signal) => done({ exitCode: code, signal }));
    if (o.input !== undefined) {
      c.stdin!.on('error', () => undefined);
      c.stdin!.end(o.input);
    }
    timers.push(
      setTimeout(() => {
        timedOut = true;
        killGroup();
        // Killed and still not closed: stop waiting (the answer is marked timed out, never taken as complete).
        timers.push(setTimeout(() => done({ exitCode: null, signal: 'SIGKILL' }), KILL_GRACE_MS));
      }, o.timeoutMs),
    );
  });
}
