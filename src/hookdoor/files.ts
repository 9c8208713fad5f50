// The door's per-request files: read only when they are private regular files of ours, replied to only through a FIFO of ours.
import { constants, promises as fsp } from 'node:fs';

export type PrivateRead = { ok: true; buf: Buffer; mtimeMs: number } | { ok: false; why: 'missing' | 'too big' | 'not ours' | 'unreadable' };

const uid = () => (typeof process.getuid === 'function' ? process.getuid() : -1);

/**
 * Reads a request file whole, at most `max` bytes: opened without following a symlink and without blocking (a FIFO
 * put there instead is never waited on), and only a regular file of this user's that nobody else may read or write.
 */
export async function readPrivate(path: string, max: number): Promise<PrivateRead> {
  let fh: fsp.FileHandle;
  try {
    fh = await fsp.open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (e) {
    return { ok: false, why: (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : 'not ours' };
  }
  try {
    const st = await fh.stat();
    if (!st.isFile() || st.uid !== uid() || (st.mode & 0o077) !== 0) return { ok: false, why: 'not ours' };
    if (st.size > max) return { ok: false, why: 'too big' };
    const buf = Buffer.allocUnsafe(st.size);
    let n = 0;
    while (n < st.size) {
      const { bytesRead } = await fh.read(buf, n, st.size - n, n);
      if (bytesRead === 0) break;
      n += bytesRead;
    }
    // Still being written (or cut): not a request to act on.
    if (n !== st.size) return { ok: false, why: 'unreadable' };
    return { ok: true, buf, mtimeMs: st.mtimeMs };
  } catch {
    return { ok: false, why: 'unreadable' };
  } finally {
    await fh.close().catch(() => undefined);
  }
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
