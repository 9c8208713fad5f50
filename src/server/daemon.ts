// Starting a server in the background (detached, its own session) and waiting until its socket answers.
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Paths } from '../platform/paths.js';
import { serverNodeFlags } from './node-flags.js';
import { probePath } from './socket-bind.js';
import { joinHost } from './host/index.js';
import { sessionServerEnv } from './server-env.js';
import { startHandedOff } from './socket-handoff.js';

const BIN = fileURLToPath(new URL('../../bin/castellan.js', import.meta.url));

/**
 * `until: 'answering'` (the default) returns once the server answers a ping. `'published'` returns as soon as the
 * socket is at its path, before the server has loaded (about a second on a busy machine): what `castellan new -d`
 * needs (tmux returns from `new -d` in ~50 ms). This process claims and publishes the socket itself and hands the
 * listening socket to the server it starts (socket-handoff.ts), so it waits for no second Node start either.
 * Connections made from then on wait, queued, until the server serves them, so a script's next call finds the
 * session; the socket is the one this process published, never that of an older server still going away at the path.
 * Where a socket cannot be handed down, the server claims it and says "published" on a pipe (its fd 3).
 */
export async function startDaemon(paths: Paths, o: { cwd: string; cols?: number; rows?: number; command?: string[]; timeoutMs?: number; restore?: boolean; until?: 'answering' | 'published' }): Promise<void> {
  mkdirSync(paths.stateDir, { recursive: true, mode: 0o700 });
  // A server of this build runs for this user already: the session starts inside it, no new process (src/server/host).
  if (await joinHost(paths, o)) return;
  const { args, env } = serverCommand(paths, o);
  const published = o.until === 'published';
  // This process claims and publishes the socket and hands it to the server (socket-handoff.ts): no wait for its Node to start.
  if (published && (await startHandedOff(paths, o.cwd, { args, env }))) return;
  const logFd = openSync(paths.serverLog, 'a', 0o600);
  if (published) env[READY_FD_ENV] = '3';
  const child = spawn(process.execPath, args, { cwd: o.cwd, env, detached: true, stdio: ['ignore', logFd, logFd, ...(published ? (['pipe'] as const) : [])] });
  closeSync(logFd);
  let exited: number | null = null;
  child.on('exit', (code) => {
    exited = code ?? 1;
  });
  child.unref();
  if (published) return waitPublished(child, paths, o.timeoutMs ?? 10_000);
  const deadline = Date.now() + (o.timeoutMs ?? 10_000);
  // Started once a server answers: the socket of one killed a moment ago may still take connections while it exits.
  const answers = async () => (await probePath(paths.socket, 500)) === 'live';
  while (Date.now() < deadline) {
    if (await answers()) return;
    if (exited !== null && exited !== 0) throw new Error(`server exited with code ${exited}; see ${paths.serverLog}`);
    if (exited === 0 && (await answers())) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`server did not start within ${o.timeoutMs ?? 10_000} ms; see ${paths.serverLog}`);
}

/** The server's command line and environment: `server start --foreground` for this session. */
export function serverCommand(paths: Paths, o: { cols?: number; rows?: number; command?: string[]; restore?: boolean }): { args: string[]; env: NodeJS.ProcessEnv } {
  const args = [...serverNodeFlags(process.env), BIN, 'server', 'start', '--foreground'];
  if (o.restore !== undefined) args.push(o.restore ? '--restore' : '--no-restore');
  if (o.cols) args.push('--cols', String(o.cols));
  if (o.rows) args.push('--rows', String(o.rows));
  if (o.command?.length) args.push('--', ...o.command);
  const env = sessionServerEnv(process.env, paths);
  return { args, env };
}

/** The variable that tells `server start --foreground` to say "published" on fd 3 (src/cli/commands/server-start.ts). */
export const READY_FD_ENV = 'CASTELLAN_READY_FD';

function waitPublished(child: ReturnType<typeof spawn>, paths: Paths, timeoutMs: number): Promise<void> {
  const pipe = child.stdio[3] as import('node:stream').Readable;
  return new Promise<void>((resolve, reject) => {
    let said = '';
    const done = (e?: Error) => {
      clearTimeout(t);
      pipe.removeAllListeners();
      child.removeListener('exit', onExit);
      pipe.destroy();
      (child.stdio[3] as { unref?: () => void } | null)?.unref?.();
      if (e) reject(e);
      else resolve();
    };
    const t = setTimeout(() => done(new Error(`server did not start within ${timeoutMs} ms; see ${paths.serverLog}`)), timeoutMs);
    pipe.setEncoding('utf8');
    pipe.on('data', (d: string) => {
      said += d;
      if (said.includes('published\n')) done();
    });
    pipe.on('error', () => {});
    // The pipe closes without the word when the server exits first: a loser of a start race (exit 1 with "already
    // running": a server is there all the same) or a failed start.
    const onExit = (code: number | null) => {
      if (said.includes('published\n')) return done();
      if (code === 0) return done();
      void probePath(paths.socket, 2000).then((p) => done(p === 'live' || p === 'hung' ? undefined : new Error(`server exited with code ${code ?? 'signal'}; see ${paths.serverLog}`)));
    };
    child.once('exit', onExit);
  });
}
