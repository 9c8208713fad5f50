// The Unix socket: private to its user, newline-delimited JSON, many requests in flight per connection.
import type net from 'node:net';
import type { Connection, SessionApi } from '../api/context.js';
import { dispatchLine } from '../api/dispatch.js';
import { MAX_LINE_BYTES } from '../api/protocol.js';
import { bindSocket, type BoundSocket } from './socket-bind.js';

export { ensureSocketDir, probeSocket } from './socket-bind.js';

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

/** Serves the API on a claimed socket. */
export function serve(bound: BoundSocket, session: SessionApi, log: (m: string) => void): void {
  bound.serve((sock) => {
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
  bound.server.on('error', (err) => log(`socket server: ${err.message}`));
}

/** Claims the socket path and serves the API on it (refuses when another server answers there). */
export async function listen(path: string, session: SessionApi, log: (m: string) => void): Promise<net.Server> {
  const bound = await bindSocket(path);
  serve(bound, session, log);
  return bound.server;
}
