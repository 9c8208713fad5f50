// A throwaway castellan world for one test: temp HOME, predictable shell, CLI runner, API client, and a cleanup that leaves nothing running.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiClient } from '../../src/api/client.js';
import { waitFor } from './wait-for.js';

/** The real CLI, as users run it (it loads dist/, so `npm run build` first). */
export const BIN = fileURLToPath(new URL('../../bin/castellan.js', import.meta.url));
export const REPO = fileURLToPath(new URL('../..', import.meta.url));
/** The prompt the test shell prints. */
export const PROMPT = '$ ';

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

export interface TempEnvOptions {
  /** `bash` (default: bash --norc --noprofile, PS1='$ ') or `sh` (dash). */
  shell?: 'bash' | 'sh';
  /** Extra variables for castellan (and so for its panes). */
  env?: Record<string, string>;
}

export interface TempEnv {
  /** The temp dir; also HOME. */
  readonly root: string;
  readonly home: string;
  readonly socket: string;
  readonly stateDir: string;
  readonly serverLog: string;
  /** Environment to spawn castellan with: nothing CASTELLAN_* from outside, TERM=xterm-256color, a simple prompt. */
  readonly env: Record<string, string>;
  /** Runs `castellan ARGS...` (no tty) and collects its output; never throws on a non-zero exit. */
  cli(args: string[], opts?: { timeoutMs?: number; cwd?: string }): Promise<CliResult>;
  /** A socket client to this env's server, closed by cleanup() if the test does not close it. */
  api(): Promise<ApiClient>;
  /** One request on a fresh connection. */
  call<T = unknown>(method: string, params?: unknown, timeoutMs?: number): Promise<T>;
  /** Does a server answer on the socket? */
  serverRunning(): Promise<boolean>;
  /** The server's pid from `ping` (remembered for cleanup). */
  serverPid(): Promise<number | undefined>;
  /** The last lines of the server log (for failure messages). */
  logTail(lines?: number): string;
  /** Pids of every process started under this HOME (server, panes, clients). */
  processes(): number[];
  /** Registers something to end first when cleanup() runs (a terminal harness). */
  onCleanup(fn: () => unknown): void;
  /** Ends what onCleanup registered, stops the server (politely, then by force), kills anything left under this HOME, removes the dir. Idempotent. */
  cleanup(): Promise<void>;
}

/** Unix socket paths must stay under ~100 bytes: prefer a short temp root. */
function shortRoot(): string {
  const base = tmpdir();
  const candidate = join(base, 'cst-XXXXXX/.config/castellan/castellan.sock');
  return candidate.length < 100 ? base : '/tmp';
}

/** Every process whose environment says HOME=home (ours: castellan inherits it, and passes it to panes). */
function pidsWithHome(home: string): number[] {
  const needle = Buffer.from(`\0HOME=${home}\0`);
  const first = Buffer.from(`HOME=${home}\0`);
  const out: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return out;
  }
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (pid === process.pid) continue;
    try {
      const env = readFileSync(`/proc/${pid}/environ`);
      if (env.includes(needle) || env.subarray(0, first.length).equals(first)) out.push(pid);
    } catch {
      /* gone, or not ours */
    }
  }
  return out;
}

/** Is the process running (a zombie counts as gone: it has exited, only its reaping is left)? */
export function pidAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

export function runNode(args: string[], o: { env: Record<string, string>; cwd: string; timeoutMs?: number }): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env: o.env, cwd: o.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, o.timeoutMs ?? 15_000);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, timedOut });
    });
  });
}

/** Envs not cleaned up yet: if the test process is interrupted (Ctrl-C, a runner timeout), their processes are killed on the way out. */
const live = new Set<{ home: string; root: string }>();
let exitHooks = false;

function emergencyCleanup(): void {
  for (const e of live) {
    for (const pid of pidsWithHome(e.home)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    try {
      rmSync(e.root, { recursive: true, force: true });
    } catch {
      /* best effort */
    }
  }
  live.clear();
}

function installExitHooks(): void {
  if (exitHooks) return;
  exitHooks = true;
  process.once('exit', emergencyCleanup);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(sig, () => {
      emergencyCleanup();
      process.kill(process.pid, sig);
    });
  }
}

export function makeTempEnv(opts: TempEnvOptions = {}): TempEnv {
  if (!existsSync(join(REPO, 'dist/cli/main.js'))) throw new Error('castellan is not built: run `npm run build` before the e2e tests');
  const root = mkdtempSync(join(shortRoot(), 'cst-'));
  const home = root;
  const socket = join(home, '.config', 'castellan', 'castellan.sock');
  if (Buffer.byteLength(socket) >= 100) throw new Error(`socket path too long for a Unix socket: ${socket}`);
  const stateDir = join(home, '.local', 'state', 'castellan');
  const binDir = join(root, 'bin');
  mkdirSync(binDir, { recursive: true });
  // A shell with no rc files and a fixed prompt, so screens are predictable.
  const shellPath = join(binDir, 'tsh');
  writeFileSync(shellPath, '#!/bin/sh\nexec /bin/bash --norc --noprofile "$@"\n');
  chmodSync(shellPath, 0o755);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: home,
    SHELL: opts.shell === 'sh' ? '/bin/sh' : shellPath,
    PS1: PROMPT,
    TERM: 'xterm-256color',
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    HISTFILE: '/dev/null',
    INPUTRC: '/dev/null',
    // The CI's second pass forces the portable process backend (src/platform/proc) in every server a test starts.
    ...(process.env.CASTELLAN_PLATFORM_BACKEND ? { CASTELLAN_PLATFORM_BACKEND: process.env.CASTELLAN_PLATFORM_BACKEND } : {}),
    ...opts.env,
  };
  const entry = { home, root };
  live.add(entry);
  installExitHooks();
  const clients = new Set<ApiClient>();
  const knownPids = new Set<number>();
  const cleanups: Array<() => unknown> = [];
  let cleaned = false;

  const self: TempEnv = {
    root,
    home,
    socket,
    stateDir,
    serverLog: join(stateDir, 'server-default.log'),
    env,
    cli: (args, o = {}) => runNode([BIN, ...args], { env, cwd: o.cwd ?? home, timeoutMs: o.timeoutMs }),
    async api() {
      const c = await ApiClient.connect(socket);
      clients.add(c);
      c.onClosed(() => clients.delete(c));
      return c;
    },
    async call<T>(method: string, params?: unknown, timeoutMs = 5000): Promise<T> {
      const c = await self.api();
      try {
        return await c.request<T>(method, params, { timeoutMs });
      } finally {
        c.close();
      }
    },
    async serverRunning() {
      try {
        const c = await ApiClient.connect(socket, 1000);
        c.close();
        return true;
      } catch {
        return false;
      }
    },
    async serverPid() {
      try {
        const r = await self.call<{ pid: number }>('ping', {}, 2000);
        knownPids.add(r.pid);
        return r.pid;
      } catch {
        return undefined;
      }
    },
    logTail(lines = 30) {
      try {
        return readFileSync(self.serverLog, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
      } catch {
        return '(no server log)';
      }
    },
    processes: () => pidsWithHome(home),
    onCleanup(fn) {
      cleanups.push(fn);
    },
    async cleanup() {
      if (cleaned) return;
      cleaned = true;
      for (const fn of cleanups.splice(0).reverse()) {
        try {
          await fn();
        } catch {
          /* the rest must still run */
        }
      }
      for (const c of clients) c.close();
      try {
        // The server.stop method is what `castellan server stop` sends; calling it directly saves starting a node process.
        if (await self.serverRunning()) {
          await self.serverPid();
          await self.call('server.stop', {}, 3000).catch(() => undefined);
          await waitFor(async () => !(await self.serverRunning()), { timeoutMs: 5000, intervalMs: 20 }).catch(() => undefined);
        }
      } finally {
        // Whatever is left (a hung server, a pane program that ignored SIGHUP, a client): by force.
        const pids = new Set([...pidsWithHome(home), ...[...knownPids].filter(pidAlive)]);
        for (const pid of pids) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            /* gone */
          }
        }
        await waitFor(() => [...pids].every((p) => !pidAlive(p)), { timeoutMs: 5000, message: `processes under ${home} to die: ${[...pids].join(' ')}` }).catch(() => undefined);
        rmSync(root, { recursive: true, force: true });
        live.delete(entry);
      }
    },
  };
  return self;
}

/** makeTempEnv whose cleanup runs after the test, pass or fail. */
export function tempEnvFor(t: { after(fn: () => unknown): void }, opts?: TempEnvOptions): TempEnv {
  const e = makeTempEnv(opts);
  t.after(() => e.cleanup());
  return e;
}
