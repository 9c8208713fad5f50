// A minimal client for castellan's socket API (newline-delimited JSON), independent of src/ so the bench measures, not reuses.
import net from 'node:net';
import { KEEP_LINE } from '../../src/platform/rpc-client.js';

type Msg = Record<string, unknown> & { id?: string | number };

export class Ndjson {
  private seq = 0;
  private buf = '';
  private readonly pending = new Map<string, { resolve(v: unknown): void; reject(e: Error): void; timer: NodeJS.Timeout }>();
  private readonly listeners = new Set<(m: Msg, at: number) => void>();
  closed = false;

  private constructor(private readonly sock: net.Socket) {
    sock.setEncoding('utf8');
    sock.on('data', (chunk: string) => this.onData(chunk));
    sock.on('close', () => {
      this.closed = true;
      for (const p of this.pending.values()) {
        clearTimeout(p.timer);
        p.reject(new Error('connection closed'));
      }
      this.pending.clear();
    });
    sock.on('error', () => {
      /* reported through close */
    });
  }

  static connect(path: string, timeoutMs = 2000): Promise<Ndjson> {
    return new Promise((resolve, reject) => {
      const s = net.connect(path);
      const t = setTimeout(() => {
        s.destroy();
        reject(new Error(`connect ${path}: timed out`));
      }, timeoutMs);
      s.once('connect', () => {
        clearTimeout(t);
        // The bench keeps its connections between requests: the server would close an idle one (src/server/idle-close.ts).
        s.write(KEEP_LINE);
        resolve(new Ndjson(s));
      });
      s.once('error', (e) => {
        clearTimeout(t);
        reject(e);
      });
    });
  }

  private onData(chunk: string): void {
    const at = performance.now();
    this.buf += chunk;
    let i: number;
    while ((i = this.buf.indexOf('\n')) !== -1) {
      const line = this.buf.slice(0, i);
      this.buf = this.buf.slice(i + 1);
      if (!line.trim()) continue;
      let m: Msg;
      try {
        m = JSON.parse(line) as Msg;
      } catch {
        continue;
      }
      const p = m.id !== undefined && ('result' in m || 'error' in m) ? this.pending.get(String(m.id)) : undefined;
      if (p) {
        this.pending.delete(String(m.id));
        clearTimeout(p.timer);
        if ('error' in m) {
          const e = m.error as { code: string; message: string };
          p.reject(new Error(`${e.code}: ${e.message}`));
        } else p.resolve(m.result);
        continue;
      }
      for (const l of this.listeners) l(m, at);
    }
  }

  request<T = Record<string, unknown>>(method: string, params?: unknown, timeoutMs = 10_000): Promise<T> {
    if (this.closed) return Promise.reject(new Error('connection closed'));
    const id = `b${++this.seq}`;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${method}: no reply within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
      this.sock.write(JSON.stringify({ id, method, params }) + '\n');
    });
  }

  /** Pushed messages (events, frames), with the time their chunk arrived. */
  onMessage(cb: (m: Msg, at: number) => void): () => void {
    this.listeners.add(cb);
    return () => this.listeners.delete(cb);
  }

  close(): void {
    this.sock.destroy();
  }
}
