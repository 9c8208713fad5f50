// The Unix socket: private to its user, newline-delimited JSON, many requests in flight per connection.
import { chmodSync, existsSync, lstatSync, mkdirSync, statSync, unlinkSync } from 'node:fs';
import net from 'node:net';
import { dirname } from 'node:path';
import type { Connection, SessionApi } from '../api/context.js';
import { dispatchLine } from '../api/dispatch.js';
import { MAX_LINE_BYTES } from '../api/protocol.js';

/** A connection whose peer stops reading is cut off past this much queued output. */
const MAX_QUEUED_BYTES = 64 * 1024 * 1024;

export type SocketConnection = Connection & { writableLength(): number; onDrain(cb: () => void): void };

let connSeq = 0;

function makeConnection(sock: net.Socket): SocketConnection {
  const closeCbs: Array<() => void> = [];
  let closed = false;
  const conn: SocketConnection = {
    id: `k${++connSeq}`,
    subscriptions: new Map(),
    get closed() {
      return closed;
    },
    send(msg) {
      if (closed || sock.destroyed) return false;
      if (sock.writableLength > MAX_QUEUED_BYTES) {
        sock.destroy(new Error('peer is not reading'));
        return false;
      }
      return sock.write(JSON.stringify(msg) + '\n');
    },
    onClose(cb) {
      if (closed) queueMicrotask(cb);
      else closeCbs.push(cb);
    },
    writableLength: () => sock.writableLength,
    onDrain: (cb) => sock.once('drain', cb),
  };
  const close = () => {
    if (closed) return;
    closed = true;
    for (const cb of closeCbs.splice(0)) {
      try {
        cb();
      } catch {
        /* a close callback must not stop the others */
      }
    }
  };
  sock.on('close', close);
  sock.on('error', () => sock.destroy());
  return conn;
}

/** Reads lines from a socket, refusing lines over the limit without buffering them. */
function onLines(sock: net.Socket, cb: (line: string) => void, tooLong: () => void): void {
  let buf = '';
  let discarding = false;
  sock.setEncoding('utf8');
  sock.on('data', (chunk: string) => {
    let start = 0;
    for (let i = chunk.indexOf('\n'); i !== -1; i = chunk.indexOf('\n', start)) {
      const piece = chunk.slice(start, i);
      start = i + 1;
      if (discarding) {
        discarding = false;
        buf = '';
        continue;
      }
      const line = buf + piece;
      buf = '';
      // A line that arrived whole in one chunk is still over the limit: refuse it the same way.
      if (line.length > MAX_LINE_BYTES) tooLong();
      else if (line.trim()) cb(line);
    }
    if (discarding) return;
    buf += chunk.slice(start);
    if (buf.length > MAX_LINE_BYTES) {
      buf = '';
      discarding = true;
      tooLong();
    }
  });
}

/** Is a server answering on this socket path? */
export function probeSocket(path: string, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(path);
    const t = setTimeout(() => {
      s.destroy();
      resolve(false);
    }, timeoutMs);
    s.once('connect', () => {
      clearTimeout(t);
      s.destroy();
      resolve(true);
    });
    s.once('error', () => {
      clearTimeout(t);
      resolve(false);
    });
  });
}

/** Creates the socket directory private to the user; refuses one that others can use. */
export function ensureSocketDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = statSync(dir);
  if (typeof process.getuid === 'function' && st.uid !== process.getuid()) throw new Error(`${dir} belongs to another user`);
  if ((st.mode & 0o077) !== 0) chmodSync(dir, 0o700);
}

export async function listen(path: string, session: SessionApi, log: (m: string) => void): Promise<net.Server> {
  ensureSocketDir(dirname(path));
  if (existsSync(path)) {
    // A live server keeps its socket; a dead one's file is replaced.
    if (await probeSocket(path)) throw Object.assign(new Error(`a server is already running on ${path}`), { code: 'EALREADY' });
    if (!lstatSync(path).isSocket()) throw new Error(`${path} exists and is not a socket`);
    unlinkSync(path);
  }
  const server = net.createServer((sock) => {
    const conn = makeConnection(sock);
    onLines(
      sock,
      (line) => {
        dispatchLine(line, { session, conn })
          .then((reply) => {
            if (reply) conn.send(reply);
          })
          .catch((err) => log(`dispatch: ${(err as Error).stack}`));
      },
      () => conn.send({ id: null, error: { code: 'line_too_long', message: `request line longer than ${MAX_LINE_BYTES} bytes; discarded` } }),
    );
  });
  const oldMask = process.umask(0o177);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } finally {
    process.umask(oldMask);
  }
  chmodSync(path, 0o600);
  server.on('error', (err) => log(`socket server: ${err.message}`));
  return server;
}
