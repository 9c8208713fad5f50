// Claiming the socket path: exactly one server gets it; a live server's socket, or anything that is not a socket, is never removed.
//
// A starter takes the start lock (a pid file, never seen half-written), binds and listens under a
// private temporary name, loads the server, and only then hard-links the socket to the public path:
// link(2) fails if the path exists, so two servers can never both have it (even if a lock was wrongly
// broken), and the path only ever names a server that is ready (or, for `new -d`, one whose starter claimed and
// published the socket and handed it down, socket-handoff.ts: connections wait queued until the server has loaded and
// serves them; probes see it 'hung' a moment). Other starters wait for the lock's
// holder and then find its socket live. A socket that refuses connections is stale (its server died);
// it is removed only under the lock, and only if it is still the inode that was probed.
// Kept free of the API and the session so a losing `server start` exits without loading them.
import { chmodSync, closeSync, fstatSync, linkSync, lstatSync, mkdirSync, readFileSync, type Stats, statSync, unlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { pidExists } from '../platform/proc/index.js';
import { dirname, join } from 'node:path';

/** A refusal to start: another server has the path (EALREADY) or the path is unsafe to use (EUNSAFE). */
export class SocketClaimError extends Error {
  constructor(
    readonly code: 'EALREADY' | 'EUNSAFE',
    message: string,
  ) {
    super(message);
  }
}

/** A lock older than this is treated as left over even if its pid is alive (the pid may have been reused). */
const LOCK_STALE_MS = 30_000;
/** How long a starter waits for a socket that takes connections without answering (a server still exiting, or a hung one). */
const SETTLE_WAIT_MS = 10_000;
/** How long a starter waits for another one to finish starting. */
const LOCK_WAIT_MS = 20_000;

/**
 * live: a server answered; dead: refused (nobody listens); missing: no file; hung: connected but no answer in time;
 * closing: every connection was closed unanswered until the timeout (a listener whose process is exiting); other: any other error.
 */
export type ProbeResult = 'live' | 'dead' | 'missing' | 'hung' | 'closing' | 'other';

/**
 * A ping line: any reply means a server reads its connections. Connecting alone does not: after kill -9 a big server
 * takes a while to tear down its memory (140 ms measured for 16 panes of 10 000 lines), and until its last thread
 * has exited its listening socket still takes connections into the kernel's backlog, then resets them. A connect-only
 * probe called that "live": a restart right after a crash refused to start ("already running"), and a client
 * attached to the dying socket and lost its connection at once.
 */
const PING_LINE = '{"id":"castellan-probe","method":"ping"}\n';
/** Between probes of a listener that closes connections unanswered (it refuses them once its process is gone). */
const CLOSING_RETRY_MS = 20;

type OneProbe = ProbeResult | 'closed';

function probeOnce(path: string, timeoutMs: number): Promise<OneProbe> {
  return new Promise((resolve) => {
    const s = net.connect(path);
    let connected = false;
    let done = false;
    const finish = (r: OneProbe) => {
      if (done) return;
      done = true;
      clearTimeout(t);
      s.destroy();
      resolve(r);
    };
    const t = setTimeout(() => finish('hung'), timeoutMs);
    s.once('connect', () => {
      connected = true;
      s.write(PING_LINE);
    });
    s.once('data', () => finish('live'));
    s.once('close', () => finish(connected ? 'closed' : 'other'));
    s.once('error', (e: NodeJS.ErrnoException) => {
      if (connected) return finish('closed');
      finish(e.code === 'ECONNREFUSED' ? 'dead' : e.code === 'ENOENT' ? 'missing' : 'other');
    });
  });
}

/** What is at a socket path within `timeoutMs`: a dying listener is probed again until it refuses (dead) or the time is up (closing). */
export async function probePath(path: string, timeoutMs = 1000): Promise<ProbeResult> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await probeOnce(path, Math.max(1, deadline - Date.now()));
    if (r !== 'closed') return r;
    if (Date.now() + CLOSING_RETRY_MS >= deadline) return 'closing';
    await new Promise((res) => setTimeout(res, CLOSING_RETRY_MS));
  }
}

/** Is a server there (answering, or connected and busy)? A listener that is going away is not. */
export async function probeSocket(path: string, timeoutMs = 1000): Promise<boolean> {
  const r = await probePath(path, timeoutMs);
  return r === 'live' || r === 'hung';
}

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}

const sameFile = (a: Stats | null, b: Stats | null): boolean => !!a && !!b && a.ino === b.ino && a.dev === b.dev;

/** Creates the socket directory private to the user; refuses (never chmods) an existing one that others own or can write. */
export function ensureSocketDir(dir: string): void {
  let st: Stats;
  try {
    st = statSync(dir);
  } catch {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    st = statSync(dir);
  }
  if (!st.isDirectory()) throw new SocketClaimError('EUNSAFE', `${dir} is not a directory`);
  if (typeof process.getuid === 'function' && st.uid !== process.getuid()) {
    throw new SocketClaimError('EUNSAFE', `${dir} belongs to another user (uid ${st.uid}); castellan keeps its socket in a directory only you own`);
  }
  if ((st.mode & 0o022) !== 0) {
    const mode = (st.mode & 0o7777).toString(8).padStart(4, '0');
    throw new SocketClaimError('EUNSAFE', `${dir} is writable by group or others (mode ${mode}); castellan will not put its socket there: \`chmod 700 ${dir}\` or set CASTELLAN_SOCKET to a private directory`);
  }
}

/** One try at the lock: the pid is written to a private file first and linked into place, so the lock is never seen half-written. */
function tryLock(lock: string): boolean | number {
  const mine = `${lock}.${process.pid}`;
  writeFileSync(mine, `${process.pid}\n`, { mode: 0o600 });
  try {
    linkSync(mine, lock);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  } finally {
    try {
      unlinkSync(mine);
    } catch {
      /* gone already */
    }
  }
  const st = lstatOrNull(lock);
  if (!st) return false;
  let holder = 0;
  try {
    holder = Number(readFileSync(lock, 'utf8').trim()) || 0;
  } catch {
    return false;
  }
  if (holder && pidExists(holder) && Date.now() - st.mtimeMs < LOCK_STALE_MS) return holder;
  // Left by a crashed starter. Remove it only if it is still the file just read (not a newer holder's).
  if (sameFile(lstatOrNull(lock), st)) {
    try {
      unlinkSync(lock);
    } catch {
      /* someone else cleared it */
    }
  }
  return false;
}

function unlock(lock: string): void {
  try {
    if (readFileSync(lock, 'utf8').trim() === String(process.pid)) unlinkSync(lock);
  } catch {
    /* gone already */
  }
}

/** Refuses when something other than a dead socket is at the path; returns the dead socket's stats, or null for nothing there. */
async function deadOrNothing(path: string): Promise<Stats | null> {
  const deadline = Date.now() + SETTLE_WAIT_MS;
  for (;;) {
    const st = lstatOrNull(path);
    if (!st) return null;
    if (!st.isSocket()) throw new SocketClaimError('EUNSAFE', `${path} exists and is not a socket; castellan leaves it alone (move it away, or set CASTELLAN_SOCKET)`);
    const probe = await probePath(path);
    if (probe === 'missing') continue;
    // A server still exiting (kill -9 of a big one) takes connections without answering, then refuses them once its
    // process is gone; from the socket alone it looks hung until then, so both are waited out a while.
    if ((probe === 'closing' || probe === 'hung') && Date.now() < deadline) continue;
    if (probe === 'closing') throw new SocketClaimError('EALREADY', `a server on ${path} closes every connection unanswered; is it stopping? (not replacing it)`);
    if (probe === 'live') throw new SocketClaimError('EALREADY', `a server is already running on ${path}`);
    if (probe === 'hung') throw new SocketClaimError('EALREADY', `a server is already running on ${path} (it has not answered for ${SETTLE_WAIT_MS / 1000} s; is it hung?)`);
    if (probe === 'other') throw new SocketClaimError('EUNSAFE', `${path} is a socket castellan cannot connect to; castellan leaves it alone`);
    return st;
  }
}

/** Throws the SocketClaimError a start would meet right now (a server answers, or the path or its directory is unsafe), without claiming anything. */
export async function checkClaimable(path: string): Promise<void> {
  ensureSocketDir(dirname(path));
  await deadOrNothing(path);
}

/** Takes the start lock, waiting for a live holder; refuses as soon as the holder's server is up on the path. */
async function takeStartLock(lock: string, path: string): Promise<void> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    const r = tryLock(lock);
    if (r === true) return;
    await deadOrNothing(path);
    if (Date.now() > deadline) throw new SocketClaimError('EALREADY', `another server is starting${typeof r === 'number' ? ` (pid ${r})` : ''}; lock ${lock}`);
    await new Promise((res) => setTimeout(res, 25));
  }
}

export interface BoundSocket {
  readonly server: net.Server;
  readonly path: string;
  /** Puts the socket at its path (the server is ready) and releases the start lock. Throws SocketClaimError if the path was taken meanwhile. */
  publish(): void;
  /** Starts handing connections to `onConnection`; ones that arrived before wait, paused, until then. */
  serve(onConnection: (sock: net.Socket) => void): void;
  /** Removes the socket file if it is still the one this server published (never a successor's), or drops the start lock. Idempotent; also runs on server close. */
  release(): void;
}

let tempSeq = 0;

/** Listens on a fresh private name next to `path` (same directory, so it can be linked; short, so it fits sun_path). */
async function listenOnTemp(server: net.Server, path: string): Promise<string> {
  for (;;) {
    const temp = join(dirname(path), `.${process.pid.toString(36)}${(tempSeq++).toString(36)}`);
    const st = lstatOrNull(temp);
    if (st && !st.isSocket()) continue;
    // Our pid's name space: a socket here is an earlier, dead process with our pid, or an earlier bind of ours that was released.
    if (st) unlinkSync(temp);
    // The mask is the process's: it is put back as soon as listen() has bound (synchronously, for a path), not after
    // an await, so nothing else of the process (another session's pane spawned meanwhile, a mkdir) runs under it.
    const oldMask = process.umask(0o177);
    let listening: Promise<void>;
    try {
      listening = new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(temp, () => {
          server.off('error', reject);
          resolve();
        });
      });
    } finally {
      process.umask(oldMask);
    }
    await listening;
    chmodSync(temp, 0o600);
    return temp;
  }
}

/** Connections wait, paused, until serve() hands them (and every later one) to the server. */
function servable(server: net.Server): (onConnection: (sock: net.Socket) => void) => void {
  const early: net.Socket[] = [];
  let handler: ((sock: net.Socket) => void) | undefined;
  server.on('connection', (sock) => {
    if (!handler) early.push(sock);
    else {
      handler(sock);
      sock.resume();
    }
  });
  return (onConnection) => {
    handler = onConnection;
    for (const sock of early.splice(0)) {
      if (sock.destroyed) continue;
      onConnection(sock);
      sock.resume();
    }
  };
}

/**
 * Claims the socket path for a server: refuses if another server answers there, is starting, or the path is unsafe. Call publish() once ready.
 * A server started by `new -d` gets the socket its starter already claimed and published (socket-handoff.ts): it takes that one.
 */
export async function bindSocket(path: string, handedEnv: string = HANDED_SOCKET_ENV): Promise<BoundSocket> {
  if (process.env[handedEnv] !== undefined) return takeHandedSocket(path, handedEnv);
  ensureSocketDir(dirname(path));
  const lock = `${path}.lock`;
  await deadOrNothing(path);
  await takeStartLock(lock, path);
  const server = net.createServer({ pauseOnConnect: true });
  const serve = servable(server);
  let temp: string;
  try {
    // Under the lock nobody else removes or publishes: a dead socket still here is the one probed.
    const dead = await deadOrNothing(path);
    if (dead && sameFile(lstatOrNull(path), dead)) unlinkSync(path);
    temp = await listenOnTemp(server, path);
  } catch (e) {
    unlock(lock);
    server.close();
    throw e;
  }
  let mine: Stats | undefined;
  let released = false;
  const dropTemp = () => {
    try {
      unlinkSync(temp);
    } catch {
      /* gone already */
    }
  };
  const release = () => {
    if (released) return;
    released = true;
    if (!mine) {
      dropTemp();
      unlock(lock);
    } else if (sameFile(lstatOrNull(path), mine)) {
      try {
        unlinkSync(path);
      } catch {
        /* gone already */
      }
    }
  };
  server.on('close', release);
  return {
    server,
    path,
    publish() {
      if (mine || released) return;
      try {
        linkSync(temp, path);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
        // Only if our lock was wrongly taken as stale: the other server keeps the path.
        throw new SocketClaimError('EALREADY', `a server is already running on ${path}`);
      }
      mine = lstatSync(path);
      dropTemp();
      unlock(lock);
    },
    serve,
    release,
  };
}

/**
 * Set by the starter that claimed and published the socket itself (`new -d`, src/server/socket-handoff.ts) for the
 * server it starts: "FD DEV:INO", the listening socket it passes as descriptor FD, and the file it put at the path.
 */
export const HANDED_SOCKET_ENV = 'CASTELLAN_HANDED_SOCKET';
/** The same for the host door (src/server/host), handed down with the session's socket by a starter that claimed both. */
export const HANDED_HOST_ENV = 'CASTELLAN_HANDED_HOST';

/**
 * The socket a starter claimed, published and passed down (HANDED_SOCKET_ENV): connections made since wait in its
 * backlog until serve(). Refused unless the descriptor is a Unix socket and the path still names the file the starter published: a path taken by another server meanwhile is never served here.
 */
async function takeHandedSocket(path: string, envName: string): Promise<BoundSocket> {
  const said = process.env[envName] ?? '';
  // Read once: no pane of this server inherits it.
  delete process.env[envName];
  const m = /^([3-9]|[1-9]\d{1,3}) (\d{1,20}):(\d{1,20})$/.exec(said);
  if (!m) throw new SocketClaimError('EUNSAFE', `${envName} is not "FD DEV:INO"; not serving a socket from it`);
  const fd = Number(m[1]);
  let isSocket = false;
  try {
    isSocket = fstatSync(fd).isSocket();
  } catch {
    /* not open */
  }
  if (!isSocket) throw new SocketClaimError('EUNSAFE', `descriptor ${fd} handed down for ${path} is not a socket`);
  const mine = lstatSync(path, { bigint: true, throwIfNoEntry: false });
  if (!mine?.isSocket() || `${mine.dev}:${mine.ino}` !== `${m[2]}:${m[3]}`) {
    closeQuietly(fd);
    throw new SocketClaimError('EALREADY', `${path} is no longer the socket handed to this server`);
  }
  const server = net.createServer({ pauseOnConnect: true });
  const serve = servable(server);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ fd }, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (e) {
    closeQuietly(fd);
    throw new SocketClaimError('EUNSAFE', `descriptor ${fd} handed down for ${path} cannot be listened on: ${(e as Error).message}`);
  }
  // A Unix socket (Node has no name for a pipe it did not bind itself), not a TCP port: that has an address.
  if (server.address() !== null) {
    server.close();
    throw new SocketClaimError('EUNSAFE', `descriptor ${fd} handed down for ${path} is not a Unix socket`);
  }
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    const now = lstatSync(path, { bigint: true, throwIfNoEntry: false });
    if (now && now.dev === mine.dev && now.ino === mine.ino) {
      try {
        unlinkSync(path);
      } catch {
        /* gone already */
      }
    }
  };
  server.on('close', release);
  return { server, path, publish() {}, serve, release };
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    /* closed */
  }
}
