// `new -d` without waiting for a second Node start: the starter claims and publishes the socket, and hands it to the server.
//
// The server's own Node start (~50 ms quiet, 250+ ms at load 12) used to sit between `castellan new -d` and its
// return: the starter waited for the server to say it had published the socket. Here the starter (the CLI, already
// running) takes the start lock, listens under a private name, links the socket to its path (socket-bind.ts, as a
// server does) and spawns the server with the listening socket as its descriptor 3. It closes its own descriptor in
// the same turn, so it never accepts a connection: what connects from then on waits in the socket's backlog until the
// server takes the socket (bindSocket with HANDED_SOCKET_ENV) and serves it. The server is told the inode published,
// so it removes the path only while it is still that socket (never a successor's), as a server that bound it does.
import { spawn } from 'node:child_process';
import { closeSync, lstatSync, openSync, unlinkSync } from 'node:fs';
import type { Paths } from '../platform/paths.js';
import { bindSocket, type BoundSocket, HANDED_HOST_ENV, HANDED_SOCKET_ENV, probePath, SocketClaimError } from './socket-bind.js';
import { hostingOff, hostSocketPath } from './host/build.js';

/** The listening descriptor of a bound socket, where Node has one (not on Windows). */
function listenerFd(bound: BoundSocket): number | undefined {
  const fd = (bound.server as unknown as { _handle?: { fd?: unknown } })._handle?.fd;
  return typeof fd === 'number' && fd > 2 ? fd : undefined;
}

/** A claim refused because a server is there: it runs (or is still loading), so the session is started all the same. */
async function serverIsThere(e: unknown, socket: string): Promise<boolean> {
  if (!(e instanceof SocketClaimError) || e.code !== 'EALREADY') return false;
  const p = await probePath(socket, 2000);
  return p === 'live' || p === 'hung';
}

/**
 * Claims and publishes the session's socket, then starts the server (`spec`, detached, its output to the server log)
 * with that socket handed down. Returns true once the socket is at its path with the server started (or another
 * server is there); false, with nothing claimed, where a socket cannot be handed down (then the server claims it).
 */
export async function startHandedOff(paths: Paths, cwd: string, spec: { args: string[]; env: NodeJS.ProcessEnv }): Promise<boolean> {
  // Only a server takes a handed socket: a starter that was given one by mistake claims its own.
  delete process.env[HANDED_SOCKET_ENV];
  delete process.env[HANDED_HOST_ENV];
  let own: Handed | undefined;
  try {
    own = await claimToHand(paths.socket);
  } catch (e) {
    if (await serverIsThere(e, paths.socket)) return true;
    throw e;
  }
  if (!own) return false;
  const { fd, drop } = own;
  // The host door too (src/server/host): a `new -d -s B` run the moment this returns then queues to start B inside
  // this server instead of starting a process of its own (the server would claim the door only once it has started).
  const door = hostingOff(spec.env) ? undefined : await claimToHand(hostSocketPath(paths.stateDir)).catch(() => undefined);
  let child: ReturnType<typeof spawn>;
  try {
    const logFd = openSync(paths.serverLog, 'a', 0o600);
    try {
      const env: NodeJS.ProcessEnv = { ...spec.env, [HANDED_SOCKET_ENV]: `3 ${own.id}` };
      if (door) env[HANDED_HOST_ENV] = `4 ${door.id}`;
      child = spawn(process.execPath, spec.args, { cwd, env, detached: true, stdio: ['ignore', logFd, logFd, fd, ...(door ? [door.fd] : [])] });
    } finally {
      closeSync(logFd);
    }
  } catch (e) {
    door?.drop();
    drop();
    throw e;
  }
  door?.closeOurs();
  // In the same turn as the spawn, before this process's loop could accept anything: the server's descriptor keeps
  // the socket listening, and closing ours must not remove the path (bound.release does, on close).
  own.closeOurs();
  child.unref();
  // A spawn that failed says so before the next turn: the socket nobody will serve goes from the path.
  const failed = await new Promise<Error | undefined>((resolve) => {
    child.once('error', resolve);
    setImmediate(() => resolve(undefined));
  });
  if (failed) {
    door?.drop();
    const now = lstatSync(paths.socket, { bigint: true, throwIfNoEntry: false });
    if (now && `${now.dev}:${now.ino}` === own.id) unlinkSync(paths.socket);
    throw new Error(`the server could not be started: ${failed.message}`);
  }
  return true;
}

interface Handed {
  fd: number;
  /** DEV:INO of the socket at its path, for the server to check it is still the one handed. */
  id: string;
  /** Closes this process's copy in the same turn as the spawn, keeping the path (the server's descriptor listens on). */
  closeOurs: () => void;
  /** Gives the claim up: the path goes (while it is still ours), the socket closes. */
  drop: () => void;
}

/**
 * A socket claimed, listening and published at `path`, to be handed to a server; undefined where Node gives no
 * descriptor to hand (nothing is left claimed). Throws what the claim or the publish threw (SocketClaimError).
 */
async function claimToHand(path: string): Promise<Handed | undefined> {
  const bound = await bindSocket(path);
  const drop = () => {
    bound.release();
    bound.server.close();
  };
  const fd = listenerFd(bound);
  if (fd === undefined) {
    drop();
    return undefined;
  }
  try {
    bound.publish();
  } catch (e) {
    drop();
    throw e;
  }
  const st = lstatSync(path, { bigint: true });
  const closeOurs = () => {
    // Closing ours must not remove the path (bound.release does, on close).
    bound.server.removeAllListeners('close');
    bound.server.close();
  };
  return { fd, id: `${st.dev}:${st.ino}`, closeOurs, drop };
}
