// Yes/no questions to the attached users (governance `prompt` policy): one answer wins, no client or no answer in time means deny.
export interface AsksHost {
  clients(): number;
  broadcast(msg: unknown): void;
}

export class Asks {
  private readonly pending = new Map<string, { resolve(a: 'allow' | 'deny'): void; timer: NodeJS.Timeout }>();
  private seq = 0;

  constructor(private readonly h: AsksHost) {}

  ask(q: { title: string; message: string; timeoutMs: number; paneId?: string }): Promise<'allow' | 'deny'> {
    if (this.h.clients() === 0) return Promise.resolve('deny');
    const id = `a${++this.seq}`;
    return new Promise((resolve) => {
      const done = (a: 'allow' | 'deny') => {
        const entry = this.pending.get(id);
        if (!entry) return;
        clearTimeout(entry.timer);
        this.pending.delete(id);
        this.h.broadcast({ ask_done: { id, answer: a } });
        resolve(a);
      };
      const timer = setTimeout(() => done('deny'), q.timeoutMs);
      this.pending.set(id, { resolve: done, timer });
      this.h.broadcast({ ask: { id, title: q.title, message: q.message, timeout_ms: q.timeoutMs, pane: q.paneId } });
    });
  }

  answer(id: string, answer: 'allow' | 'deny'): boolean {
    const entry = this.pending.get(id);
    if (!entry) return false;
    entry.resolve(answer);
    return true;
  }

  denyAll(): void {
    for (const a of [...this.pending.values()]) a.resolve('deny');
  }
}
