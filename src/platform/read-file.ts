// Reads a small file from a place someone else may control (a repository, a snapshot): bounded, never blocking.
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';

export type BoundedRead = { ok: true; buf: Buffer } | { ok: false; code: string; message: string };

/**
 * The whole file, or why not. Refuses what is not a regular file (a FIFO at a config path would block the
 * server forever; O_NONBLOCK keeps even the open from waiting) and anything over `maxBytes`, without reading it.
 */
export function readFileBounded(
  path: string,
  maxBytes: number,
  opts: {
    /** Refuse a symlink at the path (code ELOOP) instead of reading what it points to. */
    noFollow?: boolean;
    /** Looks at the open file before it is read (owner, mode, size): a message refuses it (code EREFUSED). */
    inspect?: (st: Stats) => string | undefined;
  } = {},
): BoundedRead {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | (opts.noFollow ? constants.O_NOFOLLOW : 0));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? 'EIO';
    return { ok: false, code, message: code === 'EISDIR' ? 'is a directory' : code === 'EACCES' ? 'permission denied' : (e as Error).message };
  }
  try {
    const st = fstatSync(fd);
    if (st.isDirectory()) return { ok: false, code: 'EISDIR', message: 'is a directory' };
    if (!st.isFile()) return { ok: false, code: 'ENOTREG', message: 'is not a regular file' };
    const refused = opts.inspect?.(st);
    if (refused) return { ok: false, code: 'EREFUSED', message: refused };
    if (st.size > maxBytes) return { ok: false, code: 'EFBIG', message: `is ${st.size} bytes, over the ${maxBytes}-byte limit` };
    // The size can change under us: read at most one byte past the limit to notice a file that grew.
    const buf = Buffer.allocUnsafe(Math.min(maxBytes + 1, Math.max(st.size, 0) + 1));
    let n = 0;
    for (;;) {
      if (n === buf.length) break;
      const r = readSync(fd, buf, n, buf.length - n, null);
      if (r === 0) break;
      n += r;
    }
    if (n > maxBytes) return { ok: false, code: 'EFBIG', message: `is over the ${maxBytes}-byte limit` };
    return { ok: true, buf: buf.subarray(0, n) };
  } catch (e) {
    return { ok: false, code: (e as NodeJS.ErrnoException).code ?? 'EIO', message: (e as Error).message };
  } finally {
    closeSync(fd);
  }
}
