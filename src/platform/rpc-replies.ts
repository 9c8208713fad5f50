// Requests waiting for their replies, matched by id: the bookkeeping both socket clients share (rpc-client.ts over
// node:net, the hook bridge's raw pipe client without it). Free of node:net so the bridge can load it.
import { RpcError } from './rpc-error.js';

interface Pending {
  resolve(v: unknown): void;
  reject(e: Error): void;
  timer?: NodeJS.Timeout;
}

export class PendingReplies {
  private readonly pending = new Map<string, Pending>();

  /** Waits for request `id`'s reply; with `timeoutMs`, rejects with RpcError `timeout` after it (none: waits until settled or failed). */
  wait<T>(id: string, method: string, timeoutMs: number | undefined): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const p: Pending = { resolve: resolve as (v: unknown) => void, reject };
      if (timeoutMs) {
        p.timer = setTimeout(() => {
          this.pending.delete(id);
          reject(new RpcError('timeout', `${method}: no reply within ${timeoutMs} ms`));
        }, timeoutMs);
      }
      this.pending.set(id, p);
    });
  }

  /** Settles the request `msg` replies to; false when `msg` is no reply to a waiting request (a pushed message, a stray id). */
  settle(msg: Record<string, unknown>): boolean {
    const id = msg.id;
    if (!((typeof id === 'string' || typeof id === 'number') && ('result' in msg || 'error' in msg))) return false;
    const p = this.pending.get(String(id));
    if (!p) return false;
    this.pending.delete(String(id));
    if (p.timer) clearTimeout(p.timer);
    if ('error' in msg) {
      const err = (msg.error ?? {}) as { code?: unknown; message?: unknown; data?: unknown };
      p.reject(new RpcError(String(err.code ?? 'internal_error'), String(err.message ?? 'error'), err.data));
    } else p.resolve(msg.result);
    return true;
  }

  /** Rejects every waiting request with RpcError `shutting_down` and `message` (the connection is gone). */
  failAll(message: string): void {
    for (const p of this.pending.values()) {
      if (p.timer) clearTimeout(p.timer);
      p.reject(new RpcError('shutting_down', message));
    }
    this.pending.clear();
  }
}
