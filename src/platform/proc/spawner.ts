// The processes the portable backend starts (ps, lsof) are started from a thread of their own. Starting a process
// blocks the thread that starts it until the child has exec'd: from the server's main thread, about ten `ps` a second
// while panes draw were 7-10 ms each of keys and frames waiting (measured: a main thread's p99 gap 9.2 ms with
// execFile on it, 2.6 ms with the same execFile on a worker). The worker is a few lines, made from text (no file
// to find beside a bundle), started on first use and never keeping the process alive.
import { execFile } from 'node:child_process';
import { Worker } from 'node:worker_threads';

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

// CommonJS, with no options of the parent's (execArgv: [] below; --input-type=module would make it a module). It hands
// back what execFile said; answer() below reads it, the same for a run here.
const WORKER = `
const { parentPort } = require('node:worker_threads');
const { execFile } = require('node:child_process');
parentPort.on('message', (m) => {
  execFile(m.cmd, m.args, { ...m.opts, encoding: 'utf8' }, (err, stdout) => {
    parentPort.postMessage({ id: m.id, stdout, err: err ? { code: err.code, killed: err.killed } : null });
  });
});
`;

/**
 * A tool that ran and exited non-zero still answered (ps -p and lsof -p exit 1 when a pid asked about is gone), as
 * spawnSync's answer is; no answer only when it could not start, was killed at its timeout or said too much.
 */
function answer(err: { code?: unknown; killed?: boolean } | null | undefined, stdout: string): RunResult {
  return !err || (typeof err.code === 'number' && !err.killed) ? { stdout } : { code: String(err.code ?? 'failed') };
}

let worker: Worker | undefined;
let broken = false;
let nextId = 0;
const waiting = new Map<number, (r: RunResult) => void>();

function thread(): Worker | undefined {
  if (worker || broken) return worker;
  try {
    const w = new Worker(WORKER, { eval: true, execArgv: [] });
    w.on('message', (m: { id: number; stdout: string; err: { code?: unknown; killed?: boolean } | null }) => {
      const done = waiting.get(m.id);
      waiting.delete(m.id);
      if (!waiting.size) w.unref();
      done?.(answer(m.err, m.stdout));
    });
    // A thread that dies fails what it was asked (no answer, asked again later) and is not started again.
    const lost = () => {
      if (worker === w) worker = undefined;
      broken = true;
      for (const done of waiting.values()) done({ code: 'EWORKER' });
      waiting.clear();
    };
    w.on('error', lost);
    w.on('exit', lost);
    // After the listeners (a 'message' listener refs the worker's port again): only a question on its way keeps this
    // process alive (runOffThread refs it).
    w.unref();
    worker = w;
  } catch {
    broken = true;
  }
  return worker;
}

/** Runs `cmd` off this thread (here, where no worker can start) and gives its output. */
export function runOffThread(cmd: string, args: string[], opts: RunOptions): Promise<RunResult> {
  const w = thread();
  if (!w) {
    return new Promise((resolve) => {
      execFile(cmd, args, { ...opts, encoding: 'utf8' }, (err, stdout) => resolve(answer(err, stdout)));
    });
  }
  const id = ++nextId;
  return new Promise((resolve) => {
    if (!waiting.size) w.ref();
    waiting.set(id, resolve);
    w.postMessage({ id, cmd, args, opts });
  });
}
