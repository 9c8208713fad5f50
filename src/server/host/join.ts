// The host door, starter side: before forking a server for a session, ask a running server of this build to start it
// (door.ts). Light on purpose (node:net only): the CLI loads it. Any refusal or silence means "start a process".
import { existsSync } from 'node:fs';
import net from 'node:net';
import { resolvePaths, type Paths } from '../../platform/paths.js';
import { sessionServerEnv } from '../server-env.js';
import { buildId, hostingOff, hostSocketPath } from './build.js';

export interface JoinOptions {
  cwd: string;
  cols?: number;
  rows?: number;
  command?: string[];
  restore?: boolean;
  /** How long the host may take to start the session (snapshot restore included). */
  timeoutMs?: number;
}

/** True once a running server has started the session (its socket answers); false: start a server for it. */
export async function joinHost(paths: Paths, o: JoinOptions, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  if (hostingOff(env)) return false;
  // Only sessions on their own default socket: a custom CASTELLAN_SOCKET keeps a process of its own.
  let own: Paths;
  try {
    own = resolvePaths({ session: paths.session, env });
  } catch {
    return false;
  }
  if (paths.socket !== own.socket || paths.stateDir !== own.stateDir) return false;
  const path = hostSocketPath(paths.stateDir);
  if (!existsSync(path)) return false;
  const params = { build: buildId(), session: paths.session, cwd: o.cwd, cols: o.cols, rows: o.rows, command: o.command?.length ? o.command : undefined, restore: o.restore, env: sessionServerEnv(env, paths) };
  const line = JSON.stringify({ id: 1, method: 'host.start', params }) + '\n';
  return new Promise<boolean>((resolve) => {
    const sock = net.connect(path);
    let got = '';
    let settled = false;
    const done = (ok: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      sock.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), o.timeoutMs ?? 10_000);
    sock.setEncoding('utf8');
    sock.on('connect', () => sock.write(line));
    sock.on('data', (d: string) => {
      got += d;
      const nl = got.indexOf('\n');
      if (nl < 0) {
        if (got.length > 65536) done(false);
        return;
      }
      try {
        done((JSON.parse(got.slice(0, nl)) as { result?: { started?: unknown } }).result?.started === true);
      } catch {
        done(false);
      }
    });
    sock.on('error', () => done(false));
    sock.on('close', () => done(false));
  });
}
