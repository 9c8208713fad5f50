// Best-effort link to the castellan server: governance events out (events.emit) and prompts (ui.ask); never stalls a tool call for long.
import { SocketLink } from './socket-link.js';

/** How long anything here may wait for a server that is slow or absent. */
export const EMIT_BUDGET_MS = 300;
export const NO_UI_REASON = 'no castellan UI attached';

export interface AskQuestion {
  title: string;
  message: string;
  timeoutMs: number;
  paneId?: string;
}
export interface AskAnswer {
  answer: 'allow' | 'deny';
  reason: string;
}

export interface EventSink {
  emit(e: { type: string; [k: string]: unknown }): void;
  /** Waits (at most EMIT_BUDGET_MS) for emitted events to reach the server. */
  flush(): Promise<void>;
}

const bounded = <T>(p: Promise<T>, ms: number, fallback: T): Promise<T> => {
  let t: NodeJS.Timeout | undefined;
  const timer = new Promise<T>((r) => {
    t = setTimeout(() => r(fallback), ms);
    t.unref?.();
  });
  return Promise.race([p, timer]).finally(() => clearTimeout(t));
};

/**
 * One lazily opened connection to the server on `socket`. If none answers within the budget, events
 * are dropped (they are in the audit log anyway) and prompts are answered "deny".
 */
export class ServerLink implements EventSink {
  private client?: Promise<SocketLink | null>;
  private pending: Array<Promise<unknown>> = [];

  constructor(
    readonly socket: string,
    private readonly budgetMs = EMIT_BUDGET_MS,
  ) {}

  private connect(): Promise<SocketLink | null> {
    this.client ??= SocketLink.connect(this.socket, this.budgetMs).then(
      (c) => {
        c.onClosed(() => {
          this.client = undefined;
        });
        return c;
      },
      () => {
        // No server now; a later call (a long-lived MCP server) tries again.
        this.client = undefined;
        return null;
      },
    );
    return this.client;
  }

  emit(e: { type: string; [k: string]: unknown }): void {
    const p = this.connect()
      .then((c) => c?.request('events.emit', e, this.budgetMs))
      .catch(() => undefined);
    this.pending.push(p);
  }

  async flush(): Promise<void> {
    const all = this.pending.splice(0);
    if (all.length) await bounded(Promise.all(all).then(() => undefined), this.budgetMs, undefined);
  }

  /** Asks the user in the attached UI (ui.ask); any failure to reach one is a denial. */
  async ask(q: AskQuestion): Promise<AskAnswer> {
    const c = await this.connect();
    if (!c) return { answer: 'deny', reason: NO_UI_REASON };
    try {
      const r = await c.request<AskAnswer>(
        'ui.ask',
        { title: q.title, message: q.message, timeout_ms: q.timeoutMs, ...(q.paneId ? { pane_id: q.paneId } : {}) },
        q.timeoutMs + 2000,
      );
      return r.answer === 'allow' ? { answer: 'allow', reason: r.reason || 'allowed in the castellan UI' } : { answer: 'deny', reason: r.reason || 'denied in the castellan UI' };
    } catch (e) {
      // An old server without ui.ask, or one that went away: nobody can answer, so nobody allowed it.
      return { answer: 'deny', reason: (e as { code?: string }).code === 'timeout' ? 'no answer in the castellan UI in time' : NO_UI_REASON };
    }
  }

  close(): void {
    const c = this.client;
    this.client = undefined;
    void c?.then((x) => x?.close());
  }
}
