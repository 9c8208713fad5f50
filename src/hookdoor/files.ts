// The door's per-request files: read only when they are private regular files of ours, replied to only through a FIFO of ours.
import { constants, promises as fsp, type Stats } from 'node:fs';
import { readFileBounded } from '../platform/read-file.js';

export type PrivateRead = { ok: true; buf: Buffer; mtimeMs: number } | { ok: false; why: 'missing' | 'too big' | 'not ours' | 'unreadable' };

/** readFileBounded's refusals of what is at the path (a symlink, a directory, a FIFO, another owner or mode). */
const REFUSED = new Set(['ELOOP', 'EACCES', 'EISDIR', 'ENOTREG', 'EREFUSED']);

const uid = () => (typeof process.getuid === 'function' ? process.getuid() : -1);

/**
 * Reads a request file whole, at most `max` bytes (platform/read-file.ts: without following a symlink, and without
 * blocking: a FIFO put there instead is never waited on), and only a regular file of this user's that nobody else may
 * read or write, and only as long as fstat said (one still being written, or cut, is not a request to act on).
 * Synchronous, as the config reads are: a request file is at most 256 KiB, just written, in the page cache.
 */
export function readPrivate(path: string, max: number): PrivateRead {
  let st: Stats | undefined;
  const r = readFileBounded(path, max, {
    noFollow: true,
    inspect: (s) => {
      st = s;
      return s.uid !== uid() || (s.mode & 0o077) !== 0 ? 'not ours' : undefined;
    },
  });
  if (r.ok) return r.buf.length === st!.size ? { ok: true, buf: r.buf, mtimeMs: st!.mtimeMs } : { ok: false, why: 'unreadable' };
  return { ok: false, why: r.code === 'ENOENT' ? 'missing' : r.code === 'EFBIG' ? 'too big' : REFUSED.has(r.code) ? 'not ours' : 'unreadable' };
}

/**
 * Writes the reply once into the requester's FIFO: opened write-only and non-blocking without following a symlink
 * (ENXIO: nobody reads it, the requester is gone), then checked to be a FIFO of ours; a regular file or anything else
 * put there is never written. A full pipe is retried until `deadline` (epoch ms). Resolves with whether it all went.
 */
export async function writeReply(path: string, data: Buffer, deadline: number): Promise<boolean> {
  let fh: fsp.FileHandle;
  try {
    fh = await fsp.open(path, constants.O_WRONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch {
    return false;
  }
  try {
    const st = await fh.stat();
    if (!st.isFIFO() || st.uid !== uid()) return false;
    let off = 0;
    while (off < data.length) {
      try {
        off += (await fh.write(data, off, data.length - off)).bytesWritten;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EAGAIN' || Date.now() > deadline) return false;
        await new Promise((r) => setTimeout(r, 5));
      }
    }
    return true;
  } catch {
    return false;
  } finally {
    await fh.close().catch(() => undefined);
  }
}
