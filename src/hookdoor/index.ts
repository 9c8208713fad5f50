// The hook door (issue 14): tool-gating hook calls served without a Node start.
//
// The server opens a private directory next to its socket, `<socket>.door/` (0700), with a request FIFO `in` (0600)
// and its pid in `pid`. share/hooks/door.sh, which the installed hook line runs for an agent's foreground events,
// writes the call's variables and payload to `<pid>.req` / `<pid>.pay`, makes a reply FIFO `<pid>.out`, writes one
// line `v1 <pid> <agent> <event>` to `in`, and prints the three-line reply. Here each request runs the Node bridge's
// own code (hook-command.ts runHook) in server-only mode; whatever is not "the server answered" is replied
// `fallback`, and door.sh runs the Node bridge as before. The contract: docs/integrations.md, "The hook door".
import { execFile } from 'node:child_process';
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { lstat, readdir, unlink } from 'node:fs/promises';
import net from 'node:net';
import { join } from 'node:path';
import { replyFallback } from './reply.js';
import { LineSplitter, parseRequestLine, type DoorRequest } from './request.js';
import type { ServeResult } from './serve.js';

export { DOOR_VARS } from './vars.js';

/**
 * Requests run at once; the rest wait in a queue of QUEUE_MAX. A request past that is told `fallback` at once (its
 * door.sh runs the bridge now, not after its 3 s wait: measured 3131 ms before, test/hookdoor/door.test.ts "flooded"),
 * by at most FULL_REPLIES_MAX replies at a time; only past those is its line dropped.
 */
const IN_FLIGHT_MAX = 8;
const QUEUE_MAX = 256;
const FULL_REPLIES_MAX = 256;
/** Request files older than this at the door's opening are left over from requesters that died. */
const STALE_MS = 60_000;

export interface HookDoor {
  readonly dir: string;
  /** Stops reading and removes the door directory. */
  close(): void;
  /** For tests: requests taken, answered, handed to the bridge (`full`: of those, found the queue full), lines dropped. */
  readonly stats: { lines: number; answered: number; fallback: number; full: number; dropped: number; pending: number };
}

export interface HookDoorOptions {
  socket: string;
  log(msg: string): void;
  /** Called after each request (tests). */
  onServed?(req: DoorRequest, r: ServeResult): void;
}

export const doorDir = (socket: string) => `${socket}.door`;

const mkfifo = (path: string) =>
  new Promise<void>((resolve, reject) => execFile('mkfifo', ['-m', '600', path], { timeout: 5000 }, (e) => (e ? reject(e) : resolve())));

/** The door directory, made or taken over when it is ours: a real directory (no symlink) of this user's, mode 0700. */
function claimDir(dir: string): string | undefined {
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return `cannot make it: ${(e as Error).message}`;
  }
  const st = lstatSync(dir);
  if (st.isSymbolicLink() || !st.isDirectory()) return 'not a directory';
  if (typeof process.getuid === 'function' && st.uid !== process.getuid()) return 'not ours';
  if ((st.mode & 0o777) !== 0o700) return `mode ${(st.mode & 0o777).toString(8)}, not 700`;
  // A door left by a server that died: its FIFO and pid go (its requesters' files: sweepStale, once the door is ours).
  for (const name of readdirSync(dir)) {
    if (name === 'in' || name === 'pid' || name.startsWith('pid.')) rmSync(join(dir, name), { force: true });
  }
  return undefined;
}

/** Removes request files older than STALE_MS (door.sh waits at most 10 s for a payload and 3 s for the reply). Never throws. */
export async function sweepStale(dir: string, now: number): Promise<number> {
  let n = 0;
  try {
    for (const name of await readdir(dir)) {
      if (!/^[0-9]+\.(req|pay|out)$/.test(name)) continue;
      const p = join(dir, name);
      try {
        if (now - (await lstat(p)).mtimeMs > STALE_MS) {
          await unlink(p);
          n++;
        }
      } catch {
        /* gone already */
      }
    }
  } catch {
    /* the door is gone */
  }
  return n;
}

/**
 * Opens the door of the server on `socket`; undefined (logged) when it cannot be opened safely: the hook lines then
 * run the Node bridge as before. Never throws.
 */
export async function openHookDoor(o: HookDoorOptions): Promise<HookDoor | undefined> {
  const dir = doorDir(o.socket);
  const refused = (why: string) => {
    o.log(`hook door ${dir} not opened: ${why}; hook calls take the Node bridge`);
    return undefined;
  };
  let why: string | undefined;
  try {
    why = claimDir(dir);
  } catch (e) {
    why = (e as Error).message;
  }
  if (why) return refused(why);
  await sweepStale(dir, Date.now());
  const inPath = join(dir, 'in');
  let fd: number;
  try {
    await mkfifo(inPath);
    // Read-write: the server is always a writer too, so the FIFO never reports EOF between requesters.
    fd = openSync(inPath, constants.O_RDWR | constants.O_NONBLOCK | constants.O_NOFOLLOW);
    const st = fstatSync(fd);
    if (!st.isFIFO() || (st.mode & 0o077) !== 0) {
      closeSync(fd);
      return refused('the request FIFO is not private');
    }
  } catch (e) {
    return refused(`request FIFO: ${(e as Error).message}`);
  }
  const stream = new net.Socket({ fd, readable: true, writable: false });
  const stats = { lines: 0, answered: 0, fallback: 0, full: 0, dropped: 0, pending: 0 };
  const queue: Array<{ req: DoorRequest; arrival: number }> = [];
  let inFlight = 0;
  let fullReplies = 0;
  /**
   * Pids whose request is queued or running: door.sh writes one line per call, so another line for one of them is a
   * replay, and serving it would decide and audit the call twice (measured before: the same line sent twice at once
   * was served twice). Only while it runs: a hook run in a fresh pid namespace may have the same $$ on its next call.
   */
  const taken = new Set<number>();
  let closed = false;
  let lastDropLog = 0;
  const splitter = new LineSplitter();
  const opts = { dir, socket: o.socket, log: o.log };
  let serveMod: Promise<typeof import('./serve.js')> | undefined;

  const drop = (why: string) => {
    stats.dropped++;
    const now = Date.now();
    if (now - lastDropLog > 10_000) {
      lastDropLog = now;
      o.log(`hook door: dropped a request line (${why}; ${stats.dropped} so far)`);
    }
  };
  // A fresh reply FIFO's empty pipe always takes the 13 bytes, so one try (deadline now): a requester whose pipe is full
  // or gone costs nothing more.
  const queueFull = (req: DoorRequest) => {
    if (fullReplies >= FULL_REPLIES_MAX) return drop('queue full');
    fullReplies++;
    stats.fallback++;
    stats.full++;
    void replyFallback(dir, req.pid, Date.now()).finally(() => {
      fullReplies--;
      o.onServed?.(req, { answered: false, why: 'queue full' });
    });
  };
  const pump = () => {
    while (!closed && inFlight < IN_FLIGHT_MAX && queue.length) {
      const { req, arrival } = queue.shift()!;
      inFlight++;
      stats.pending = queue.length;
      void (serveMod ??= import('./serve.js'))
        .then((m) => m.serveRequest(opts, req, arrival))
        .then(
          (r) => {
            if (r.answered) stats.answered++;
            else stats.fallback++;
            o.onServed?.(req, r);
          },
          (e: unknown) => o.log(`hook door: ${(e as Error)?.stack ?? e}`),
        )
        .finally(() => {
          inFlight--;
          taken.delete(req.pid);
          pump();
        });
    }
  };
  stream.on('data', (chunk: Buffer) => {
    splitter.push(chunk, (line, cut) => {
      stats.lines++;
      const req = parseRequestLine(line);
      if ('why' in req) return drop(cut ? 'overlong line' : req.why);
      if (taken.has(req.pid)) return drop('a replay of a request being served');
      if (queue.length >= QUEUE_MAX) return queueFull(req);
      taken.add(req.pid);
      queue.push({ req, arrival: Date.now() });
    });
    pump();
  });
  stream.on('error', (e) => o.log(`hook door: request FIFO: ${e.message}`));
  // The pid last: door.sh takes the door only once a live server is named in it.
  try {
    const tmp = join(dir, `pid.${process.pid}`);
    writeFileSync(tmp, `${process.pid}\n`, { mode: 0o600, flag: 'wx' });
    renameSync(tmp, join(dir, 'pid'));
  } catch (e) {
    stream.destroy();
    return refused(`pid file: ${(e as Error).message}`);
  }
  // Files of requesters killed without their trap (SIGKILL) would pile up in a server that runs for weeks: a payload may be 8 MiB.
  const sweeper = setInterval(() => void sweepStale(dir, Date.now()), STALE_MS);
  sweeper.unref();
  o.log(`hook door open at ${dir}`);
  return {
    dir,
    stats,
    close() {
      if (closed) return;
      closed = true;
      clearInterval(sweeper);
      queue.length = 0;
      taken.clear();
      stream.destroy();
      // Only when it is still our door (a server that replaced ours on the same socket path keeps its own).
      try {
        if (readFileSync(join(dir, 'pid'), 'utf8') === `${process.pid}\n` && !lstatSync(dir).isSymbolicLink()) rmSync(dir, { recursive: true, force: true });
      } catch {
        /* gone already */
      }
    },
  };
}
