// Starting a server in the background (detached, its own session) and waiting until its socket answers.
import { spawn } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Paths } from '../platform/paths.js';
import { serverNodeFlags } from './node-flags.js';
import { probePath } from './socket-bind.js';

const BIN = fileURLToPath(new URL('../../bin/castellan.js', import.meta.url));

export async function startDaemon(paths: Paths, o: { cwd: string; cols?: number; rows?: number; command?: string[]; timeoutMs?: number; restore?: boolean }): Promise<void> {
  mkdirSync(paths.stateDir, { recursive: true, mode: 0o700 });
  const logFd = openSync(paths.serverLog, 'a', 0o600);
  // The session travels in CASTELLAN_SESSION next to CASTELLAN_SOCKET: a --session flag would re-derive (and so lose) a custom socket.
  const args = [...serverNodeFlags(process.env), BIN, 'server', 'start', '--foreground'];
  if (o.restore !== undefined) args.push(o.restore ? '--restore' : '--no-restore');
  if (o.cols) args.push('--cols', String(o.cols));
  if (o.rows) args.push('--rows', String(o.rows));
  if (o.command?.length) args.push('--', ...o.command);
  const env: NodeJS.ProcessEnv = { ...process.env, CASTELLAN_SOCKET: paths.socket, CASTELLAN_SESSION: paths.session, CASTELLAN_SERVER: '1' };
  // The server must not keep the caller's pane identity: it is a new, separate server.
  delete env.CASTELLAN_PANE_ID;
  delete env.CASTELLAN_ENV;
  const child = spawn(process.execPath, args, { cwd: o.cwd, env, detached: true, stdio: ['ignore', logFd, logFd] });
  let exited: number | null = null;
  child.on('exit', (code) => {
    exited = code ?? 1;
  });
  child.unref();
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
