// The Unix socket: private to its user, newline-delimited JSON, many requests in flight per connection.
import type net from 'node:net';
import type { Connection, SessionApi } from '../api/context.js';
import { dispatchLine } from '../api/dispatch.js';
import { leadingId } from '../api/json-guard.js';
import { MAX_LINE_BYTES } from '../api/protocol.js';
import { IDLE_CLOSE_MS, idleCloser, type IdleCloser } from './idle-close.js';
import { bindSocket, type BoundSocket } from './socket-bind.js';

export { ensureSocketDir, probeSocket } from './socket-bind.js';

/** How much output may wait for peers that are slow to read: per connection, and for all of them together. */
export interface OutputLimits {
  perConnection: number;
  total: number;
}

export const DEFAULT_OUTPUT_LIMITS: OutputLimits = { perConnection: 64 * 1024 * 1024, total: 256 * 1024 * 1024 };
/** Below this a connection's own queue is not worth summing everyone's for: it is keeping up. */
const TOTAL_CHECK_FROM = 64 * 1024;
/** Past this many connections new ones are refused (each may hold up to TOTAL_CHECK_FROM unchecked). */
const MAX_CONNECTIONS = 1024;

export type SocketConnection = Connection & { writableLength(): number; onDrain(cb: () => void): void };

const MiB = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;

/** Output queued on this server's connections, and who to cut off when it is too much. */
class OutputBudget {
  private readonly socks = new Map<net.Socket, string>();
  constructor(
    readonly limits: OutputLimits,
    private readonly log: (m: string) => void,
  ) {}
  /** Output waiting in user space on every connection. */
  queued(): number {
    let total = 0;
    for (const s of this.socks.keys()) total += s.writableLength;
    return total;
  }
  add(sock: net.Socket, id: string): void {
    this.socks.set(sock, id);
    sock.once('close', () => this.socks.delete(sock));
  }
  /** Ends every connection (what is queued still goes out); one that is not gone a second later is destroyed. */
  endAll(): void {
    for (const sock of this.socks.keys()) {
      sock.end();
      setTimeout(() => sock.destroy(), 1000).unref();
    }
  }
  drop(sock: net.Socket, why: string): void {
    this.log(`dropping connection ${this.socks.get(sock) ?? '?'}: ${why}`);
    this.socks.delete(sock);
    sock.destroy();
  }
  /** May `sock` queue `bytes` more? Cuts off the connections with the most queued output until everyone fits. */
  admit(sock: net.Socket, bytes: number): boolean {
    const own = sock.writableLength + bytes;
    if (own > this.limits.perConnection) {
      this.drop(sock, `${MiB(own)} of output queued, over the ${MiB(this.limits.perConnection)} per connection (the peer is not reading)`);
      return false;
    }
    if (own < TOTAL_CHECK_FROM) return true;
    let total = bytes + this.queued();
    while (total > this.limits.total) {
      let worst: net.Socket | undefined;
      for (const s of this.socks.keys()) if (!worst || s.writableLength > worst.writableLength) worst = s;
      if (!worst) break;
      const queued = worst.writableLength + (worst === sock ? bytes : 0);
      total -= queued;
      this.drop(worst, `${MiB(queued)} of output queued, the most of any connection, while all of them hold over the ${MiB(this.limits.total)} total`);
      if (worst === sock) return false;
    }
    return true;
  }
}

let connSeq = 0;

function makeConnection(sock: net.Socket, budget: OutputBudget): SocketConnection {
  const closeCbs: Array<() => void> = [];
  let closed = false;
  const id = `k${++connSeq}`;
  budget.add(sock, id);
  const conn: SocketConnection = {
    id,
    subscriptions: new Map(),
    get closed() {
      return closed;
    },
    send(msg) {
      if (closed || sock.destroyed) return false;
      let line = JSON.stringify(msg) + '\n';
      // A reply too big to ever queue (a huge scrollback) is answered with an error rather than a cut connection.
      if (line.length > budget.limits.perConnection && msg && typeof msg === 'object' && 'result' in msg && 'id' in msg) {
        const message = `reply of ${MiB(line.length)} is over the ${MiB(budget.limits.perConnection)} a connection may queue; ask for less (e.g. pane.read lines)`;
        line = JSON.stringify({ id: (msg as { id: unknown }).id, error: { code: 'limit_exceeded', message } }) + '\n';
      }
      if (!budget.admit(sock, Buffer.byteLength(line))) return false;
      return sock.write(line);
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

/**
 * Reads lines (as bytes) from a socket, refusing lines over MAX_LINE_BYTES bytes without buffering them.
 * A chunk of many pipelined lines is handled for at most `turnMs` at a time; the rest waits a turn
 * (the socket paused) so one flooding connection cannot keep the others from being heard.
 */
export function onLines(sock: net.Socket, cb: (line: Buffer) => void, tooLong: (head: Buffer) => void, turnMs = 10): { buffered(): boolean } {
  let parts: Buffer[] = [];
  let size = 0;
  let discarding = false;
  /** Returns true when it left part of the chunk for a later turn. */
  const take = (chunk: Buffer): boolean => {
    const t0 = performance.now();
    let start = 0;
    for (let i = chunk.indexOf(0x0a); i !== -1; i = chunk.indexOf(0x0a, start)) {
      const piece = chunk.subarray(start, i);
      start = i + 1;
      if (discarding) {
        discarding = false;
        continue;
      }
      // A line that arrived whole in one chunk is still over the limit: refuse it the same way.
      if (size + piece.length > MAX_LINE_BYTES) tooLong(size ? parts[0] : piece);
      else {
        const line = size ? Buffer.concat([...parts, piece]) : piece;
        if (line.some((c) => c !== 0x20 && c !== 0x09 && c !== 0x0d)) cb(line);
      }
      parts = [];
      size = 0;
      if (start < chunk.length && performance.now() - t0 > turnMs) {
        const rest = chunk.subarray(start);
        sock.pause();
        setImmediate(() => {
          if (!sock.destroyed && !take(rest)) sock.resume();
        });
        return true;
      }
    }
    if (discarding || start === chunk.length) return false;
    const rest = chunk.subarray(start);
    if (size + rest.length > MAX_LINE_BYTES) {
      const head = size ? parts[0] : rest;
      parts = [];
      size = 0;
      discarding = true;
      tooLong(head);
      return false;
    }
    parts.push(rest);
    size += rest.length;
    return false;
  };
  sock.on('data', (chunk: Buffer) => {
    take(chunk);
  });
  // Part of a line (or the tail of an over-long one) waits for its end.
  return { buffered: () => size > 0 || discarding };
}

export interface ServeHandle {
  /** Output waiting for slow readers, over all connections (bounded by OutputLimits.total). */
  queuedBytes(): number;
  /** Ends every connection: the session stopped while its process lives on for other sessions (src/server/host). */
  endAll(): void;
}

/** Serves the API on a claimed socket. */
export function serve(bound: BoundSocket, session: SessionApi, log: (m: string) => void, limits: OutputLimits = DEFAULT_OUTPUT_LIMITS, idleMs = IDLE_CLOSE_MS): ServeHandle {
  const budget = new OutputBudget(limits, log);
  bound.server.maxConnections = MAX_CONNECTIONS;
  bound.server.on('drop', () => log(`refused a connection: ${MAX_CONNECTIONS} are open`));
  bound.serve((sock) => {
    const conn = makeConnection(sock, budget);
    let idle: IdleCloser | undefined;
    const lines = onLines(
      sock,
      (line) => {
        idle?.started();
        dispatchLine(line, { session, conn })
          .then((reply) => {
            if (reply) conn.send(reply);
          })
          .catch((err) => log(`dispatch: ${(err as Error).stack}`))
          .finally(() => idle?.finished());
      },
      // The reply carries the request's id when the line starts with it, so the caller fails at once instead of timing out.
      (head) => conn.send({ id: leadingId(head), error: { code: 'line_too_long', message: `request line longer than ${MAX_LINE_BYTES} bytes; discarded` } }),
    );
    idle = idleCloser(sock, conn, lines.buffered, idleMs);
  });
  bound.server.on('error', (err) => log(`socket server: ${err.message}`));
  return { queuedBytes: () => budget.queued(), endAll: () => budget.endAll() };
}

/** Claims the socket path and serves the API on it (refuses when another server answers there). */
export async function listen(path: string, session: SessionApi, log: (m: string) => void, limits?: OutputLimits): Promise<net.Server> {
  const bound = await bindSocket(path);
  bound.publish();
  serve(bound, session, log, limits);
  return bound.server;
}
