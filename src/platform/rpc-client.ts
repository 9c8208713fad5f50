// The one client of castellan's newline-delimited JSON socket (CLI, UI, hook bridges, governance): requests with ids,
// replies matched to them, pushed messages to listeners. Free of zod and of src/api, so every layer may use it.
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { NotRunningError, RpcError } from './rpc-error.js';
import { PendingReplies } from './rpc-replies.js';

export { NotRunningError, RpcError };

/** 64 MiB: what the server queues for one connection at most. */
const MAX_REPLY_CHARS = 64 * 1024 * 1024;

export type Pushed = Record<string, unknown>;

/** Asks the server to leave this connection open while it is idle (src/server/idle-close.ts); a notification, no reply. */
export const KEEP_LINE = '{"method":"connection.keep","params":{}}\n';

export class RpcClient {
  private seq = 0;
  private readonly replies = new PendingReplies();
  private readonly listeners = new Set<(msg: Pushed) => void>();
  private readonly closeListeners = new Set<() => void>();
  private buf = '';
  closed = false;

  private constructor(private readonly sock: Duplex) {
    sock.setEncoding('utf8');
    sock.on('data', (chunk: string) => this.onData(chunk));
    sock.on('close', () => this.onClose());
    sock.on('error', () => {
      /* surfaced through close */
    });
  }

  /** A client over any byte stream that carries the same lines (a remote machine's ssh bridge: src/machines). */
  static over(stream: Duplex): RpcClient {
    return new RpcClient(stream);
  }

  static connect(path: string, timeoutMs = 2000): Promise<RpcClient> {
    return new Promise((resolve, reject) => {
      const sock = net.connect(path);
      const t = setTimeout(() => {
        sock.destroy();
        reject(new NotRunningError(path, `connect timed out after ${timeoutMs} ms`));
      }, timeoutMs);
      sock.once('connect', () => {
        clearTimeout(t);
        // castellan's clients keep their connection for later requests: the server leaves it open while idle
        // (it closes an answered, idle one otherwise, so `printf … | nc -U` returns). A notification: no reply.
        sock.write(KEEP_LINE);
        resolve(new RpcClient(sock));
      });
      sock.once('error', (e: NodeJS.ErrnoException) => {
        clearTimeout(t);
        reject(e.code === 'ENOENT' || e.code === 'ECONNREFUSED' ? new NotRunningError(path) : e);
      });
    });
  }

  private onData(chunk: string): void {
    // Only the new chunk is searched for line ends: a 20 MB reply in 64 KB chunks must not rescan what came before.
    let start = 0;
    for (let i = chunk.indexOf('\n'); i !== -1; i = chunk.indexOf('\n', start)) {
      const line = this.buf + chunk.slice(start, i);
      this.buf = '';
      start = i + 1;
      this.onLine(line);
      if (this.closed) return;
    }
    this.buf += chunk.slice(start);
    // The server never queues more than this for one connection; a longer line is not from a castellan server.
    if (this.buf.length > MAX_REPLY_CHARS) {
      this.buf = '';
      this.sock.destroy();
      this.onClose(`a reply longer than ${MAX_REPLY_CHARS} characters`);
    }
  }

  private onLine(line: string): void {
    if (!line.trim()) return;
    let msg: Pushed;
    try {
      msg = JSON.parse(line);
    } catch {
      return;
    }
    // A line that is no JSON object (`null`, a number) is no reply and no message: it used to throw here.
    if (!msg || typeof msg !== 'object' || this.replies.settle(msg)) return;
    for (const l of this.listeners) l(msg);
  }

  private onClose(why?: string): void {
    if (this.closed) return;
    this.closed = true;
    this.replies.failAll(why ? `connection to the server closed: ${why}` : 'connection to the server closed');
    for (const l of this.closeListeners) l();
  }

  /** Sends a request and resolves with its result; rejects with RpcError on an error reply, a timeout or a closed connection. */
  request<T = unknown>(method: string, params?: unknown, options: { timeoutMs?: number; id?: string } | number = {}): Promise<T> {
    const opts = typeof options === 'number' ? { timeoutMs: options } : options;
    if (this.closed) return Promise.reject(new RpcError('shutting_down', 'connection to the server closed'));
    const id = opts.id ?? String(++this.seq);
    const reply = this.replies.wait<T>(id, method, opts.timeoutMs);
    this.sock.write(JSON.stringify({ id, method, params }) + '\n');
    return reply;
  }

  /** Fire-and-forget (no id, no reply): used for the UI's input stream. */
  notify(method: string, params?: unknown): void {
    if (!this.closed) this.sock.write(JSON.stringify({ method, params }) + '\n');
  }

  /** Next request id this client would use (for tagging subscriptions). */
  nextId(): string {
    return String(++this.seq);
  }

  onMessage(cb: (msg: Pushed) => void): () => void {
    this.listeners.add(cb);
    return () => this.listeners.delete(cb);
  }

  onClosed(cb: () => void): void {
    if (this.closed) queueMicrotask(cb);
    else this.closeListeners.add(cb);
  }

  close(): void {
    this.sock.end();
    this.sock.destroy();
    this.onClose();
  }
}
