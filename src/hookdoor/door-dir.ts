// The door's directory: claimed only when it is ours, its request FIFO made and opened, the server's pid published,
// requesters' stale files swept, and checked to be still ours while the server runs.
import { execFile } from 'node:child_process';
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { lstat, readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { pidExists } from '../platform/proc/index.js';

/** Request files older than this are left over from requesters that died. */
export const STALE_MS = 60_000;

export const doorDir = (socket: string) => `${socket}.door`;

const mkfifo = (path: string) =>
  new Promise<void>((resolve, reject) => execFile('mkfifo', ['-m', '600', path], { timeout: 5000 }, (e) => (e ? reject(e) : resolve())));

/** The door directory, made or taken over when it is ours: a real directory (no symlink) of this user's, mode 0700; else why not (never throws, as its siblings). */
export function claimDir(dir: string): string | undefined {
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return `cannot make it: ${(e as Error).message}`;
  }
  try {
    const st = lstatSync(dir);
    if (st.isSymbolicLink() || !st.isDirectory()) return 'not a directory';
    if (typeof process.getuid === 'function' && st.uid !== process.getuid()) return 'not ours';
    if ((st.mode & 0o777) !== 0o700) return `mode ${(st.mode & 0o777).toString(8)}, not 700`;
    // A door left by a server that died: its FIFO and pid go (its requesters' files: sweepStale, once the door is ours).
    for (const name of readdirSync(dir)) {
      if (name === 'in' || name === 'pid' || name.startsWith('pid.')) rmSync(join(dir, name), { force: true });
    }
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

/** Makes the request FIFO `in` and opens it; its fd, or why not. */
export async function openRequestFifo(dir: string): Promise<{ fd: number } | { why: string }> {
  const inPath = join(dir, 'in');
  try {
    await mkfifo(inPath);
    // Read-write: the server is always a writer too, so the FIFO never reports EOF between requesters.
    const fd = openSync(inPath, constants.O_RDWR | constants.O_NONBLOCK | constants.O_NOFOLLOW);
    const st = fstatSync(fd);
    if (!st.isFIFO() || (st.mode & 0o077) !== 0) {
      closeSync(fd);
      return { why: 'the request FIFO is not private' };
    }
    return { fd };
  } catch (e) {
    return { why: `request FIFO: ${(e as Error).message}` };
  }
}

/** Names this server in `pid` (written aside, then renamed: door.sh never reads half a pid). Last: door.sh takes the door only once a live server is named in it. */
export function publishPid(dir: string): string | undefined {
  try {
    const tmp = join(dir, `pid.${process.pid}`);
    writeFileSync(tmp, `${process.pid}\n`, { mode: 0o600, flag: 'wx' });
    renameSync(tmp, join(dir, 'pid'));
    return undefined;
  } catch (e) {
    return `pid file: ${(e as Error).message}`;
  }
}

/**
 * Is the door still the one this server reads on `fd`? `theirs` when `pid` names another live process (a server that
 * took this socket path over: its door, never touched); `broken` when `in` is not our FIFO any more (removed, or a file, a
 * symlink or another FIFO put there) or `pid` is gone: door.sh then never reaches us, and every call takes the bridge.
 */
export function doorState(dir: string, fd: number): 'ours' | 'theirs' | 'broken' {
  let pid: string;
  try {
    if (!lstatSync(join(dir, 'pid')).isFile()) return 'broken';
    pid = readFileSync(join(dir, 'pid'), 'utf8');
  } catch {
    return 'broken';
  }
  if (pid !== `${process.pid}\n`) return /^[1-9][0-9]{0,9}\n$/.test(pid) && pidExists(Number(pid)) ? 'theirs' : 'broken';
  try {
    const a = lstatSync(join(dir, 'in'));
    const b = fstatSync(fd);
    return a.isFIFO() && a.ino === b.ino && a.dev === b.dev ? 'ours' : 'broken';
  } catch {
    return 'broken';
  }
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
