// A minimal client for the server's newline-delimited JSON socket (requests and replies only), so hooks need not depend on src/api.
import net from 'node:net';

export class LinkError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** One connection: `request(method, params)` resolves with the result or rejects with a LinkError (server error code, `timeout`, `closed`). */
export class SocketLink {
  private seq = 0;
  private buf = '';
  private readonly pending = new Map<string, { resolve(v: unknown): void; reject(e: Error): void; timer: NodeJS.Timeout }>();
  private readonly closeCbs: Array<() => void> = [];
  closed = false;

  private constructor(private readonly sock: net.Socket) {
    sock.setEncoding('utf8');
    sock.on('data', (d: string) => this.onData(d));
    sock.on('close', () => this.onClose());
    sock.on('error', () => {
      /* surfaced through close */
    });
  }

  static connect(path: string, timeoutMs: number): Promise<SocketLink> {
    return new Promise((resolve, reject) => {
      const sock = net.connect(path);
      const t = setTimeout(() => {
        sock.destroy();
        reject(new LinkError('timeout', `no server answered on ${path} within ${timeoutMs} ms`));
      }, timeoutMs);
      sock.once('connect', () => {
        clearTimeout(t);
        resolve(new SocketLink(sock));
      });
      sock.once('error', (e) => {
        clearTimeout(t);
        reject(new LinkError('not_running', `no server on ${path}: ${e.message}`));
      });
    });
  }

  private onData(chunk: string): void {
    this.buf += chunk;
    let i: number;
    while ((i = this.buf.indexOf('\n')) !== -1) {
      const line = this.buf.slice(0, i);
      this.buf = this.buf.slice(i + 1);
      let msg: { id?: unknown; result?: unknown; error?: { code?: string; message?: string } };
      try {
        msg = JSON.parse(line);
      } catch {
        continue;
      }
      const p = this.pending.get(String(msg.id));
      if (!p || !('result' in msg || 'error' in msg)) continue;
      this.pending.delete(String(msg.id));
      clearTimeout(p.timer);
      if (msg.error) p.reject(new LinkError(String(msg.error.code ?? 'internal_error'), String(msg.error.message ?? 'error')));
      else p.resolve(msg.result);
    }
  }

  private onClose(): void {
    if (this.closed) return;
    this.closed = true;
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(new LinkError('closed', 'connection to the server closed'));
    }
    this.pending.clear();
    for (const cb of this.closeCbs) cb();
  }

  onClosed(cb: () => void): void {
    if (this.closed) queueMicrotask(cb);
    else this.closeCbs.push(cb);
  }

  request<T = unknown>(method: string, params: unknown, timeoutMs: number): Promise<T> {
    if (this.closed) return Promise.reject(new LinkError('closed', 'connection to the server closed'));
    const id = `gov-${++this.seq}`;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new LinkError('timeout', `${method}: no reply within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
      this.sock.write(JSON.stringify({ id, method, params }) + '\n');
    });
  }

  close(): void {
    this.sock.destroy();
    this.onClose();
  }
}
