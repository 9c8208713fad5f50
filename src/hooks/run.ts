// Runs one command to completion with a deadline, capped output and its whole process group killed on timeout (the only execa import).
import type { execa as Execa } from 'execa';

// Loaded on first use: a tool call with no hook to run should not pay for loading execa (~50-100 ms at startup).
let execaModule: Promise<typeof Execa> | undefined;
const loadExeca = () => (execaModule ??= import('execa').then((m) => m.execa));

export const DEFAULT_MAX_OUTPUT = 64 * 1024;
/** After the main process exits, how long its output pipes may stay open (a backgrounded grandchild) before the group is killed. */
const PIPE_GRACE_MS = 200;
/** After a kill, how long we wait for the exit to be observed before settling anyway. */
const KILL_GRACE_MS = 500;

export interface RunRequest {
  file: string;
  args: readonly string[];
  cwd: string;
  env: Record<string, string>;
  /** Written to stdin, then stdin is closed. */
  input?: string;
  timeoutMs: number;
  /** Cap for each of stdout and stderr (bytes); the rest is read and dropped. */
  maxOutput?: number;
}

export interface RunResult {
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  /** stdout or stderr was longer than the cap. */
  truncated: boolean;
  timedOut: boolean;
  durationMs: number;
  /** The command could not be started at all (bad cwd, missing interpreter). */
  spawnError?: string;
}

/** Process groups we started and have not seen finish: killed if castellan itself exits first. */
const live = new Set<number>();
let exitHookInstalled = false;
function track(pid: number): void {
  live.add(pid);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const p of live) killGroup(p);
  });
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    /* already gone */
  }
}

class Capped {
  private chunks: Buffer[] = [];
  private size = 0;
  over = false;
  constructor(private readonly cap: number) {}
  push(b: Buffer): void {
    if (this.size >= this.cap) {
      this.over = true;
      return;
    }
    const room = this.cap - this.size;
    const part = b.length > room ? b.subarray(0, room) : b;
    if (part.length < b.length) this.over = true;
    this.chunks.push(part);
    this.size += part.length;
  }
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

/**
 * Spawns `file args` detached (its own process group), feeds `input`, collects capped output and resolves
 * once it exited and its pipes closed. On timeout the whole group gets SIGKILL. The promise settles in
 * bounded time even if a grandchild escapes the group and keeps the pipes open: after a short grace the
 * pipes are destroyed and the result is reported with what was read.
 */
export async function runCaptured(req: RunRequest): Promise<RunResult> {
  const execa = await loadExeca();
  const started = performance.now();
  const cap = req.maxOutput ?? DEFAULT_MAX_OUTPUT;
  const out = new Capped(cap);
  const err = new Capped(cap);
  let timedOut = false;
  let exit: { code: number | null; signal: string | null } | undefined;

  const sub = execa(req.file, [...req.args], {
    cwd: req.cwd,
    env: req.env,
    extendEnv: false,
    detached: true,
    buffer: false,
    reject: false,
    stripFinalNewline: false,
    ...(req.input !== undefined ? { input: req.input } : { stdin: 'ignore' as const }),
  });
  const pid = sub.pid;
  if (pid !== undefined) track(pid);
  sub.stdout?.on('data', (b: Buffer) => out.push(b));
  sub.stderr?.on('data', (b: Buffer) => err.push(b));

  return new Promise<RunResult>((resolve) => {
    let settled = false;
    const timers: NodeJS.Timeout[] = [];
    const later = (ms: number, fn: () => void) => timers.push(setTimeout(fn, ms));
    const finish = (spawnError?: string) => {
      if (settled) return;
      settled = true;
      for (const t of timers) clearTimeout(t);
      if (pid !== undefined) live.delete(pid);
      sub.stdout?.destroy();
      sub.stderr?.destroy();
      resolve({
        exitCode: exit?.code ?? null,
        signal: exit?.signal ?? null,
        stdout: out.text(),
        stderr: err.text(),
        truncated: out.over || err.over,
        timedOut,
        durationMs: Math.round((performance.now() - started) * 10) / 10,
        ...(spawnError ? { spawnError } : {}),
      });
    };
    const abandon = () => {
      // Something outside our reach holds the pipes: stop waiting for them.
      if (pid !== undefined) killGroup(pid);
      finish();
    };

    sub.on('exit', (code, signal) => {
      exit = { code, signal };
      // Normally the pipes close right after; a backgrounded grandchild may hold them open.
      later(timedOut ? KILL_GRACE_MS : PIPE_GRACE_MS, abandon);
    });
    later(req.timeoutMs, () => {
      if (exit || settled) return;
      timedOut = true;
      if (pid !== undefined) killGroup(pid);
      later(KILL_GRACE_MS, abandon);
    });
    sub.then(
      (r) => {
        if (!exit && r.failed && r.exitCode === undefined && !r.signal && !timedOut) return finish(r.shortMessage ?? 'could not start');
        if (!exit) exit = { code: r.exitCode ?? null, signal: r.signal ?? null };
        // Leftovers of a finished hook (a `sleep &` that closed its pipes) do not outlive it.
        if (pid !== undefined) killGroup(pid);
        finish();
      },
      () => finish('could not start'),
    );
  });
}
