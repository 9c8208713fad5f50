// Change summaries without a busy poll: fs.watch on the worktree (and its git admin dir), debounced, one git run at a time.
import { watch, type FSWatcher } from 'node:fs';

export interface WatchOptions {
  paths: string[];
  /** Computes and publishes the summary; its own timeouts bound it. */
  refresh(): Promise<void>;
  /** Quiet time after the last change before a refresh. */
  debounceMs?: number;
  /** At least this long between two refreshes while files keep changing (an `npm install` in the worktree). */
  minIntervalMs?: number;
  /** Slow fallback when the OS refuses a watch (inotify limit): one refresh this often. */
  fallbackMs?: number;
  log(msg: string): void;
}

export class SummaryWatch {
  private readonly watchers: FSWatcher[] = [];
  private timer: NodeJS.Timeout | undefined;
  private fallback: NodeJS.Timeout | undefined;
  private running = false;
  private again = false;
  private last = 0;
  private closed = false;

  constructor(private readonly o: WatchOptions) {
    for (const p of o.paths) {
      try {
        const w = watch(p, { recursive: true, persistent: false }, () => this.poke());
        w.on('error', () => this.degrade(p));
        this.watchers.push(w);
      } catch (e) {
        this.o.log(`worktree watch ${p}: ${(e as Error).message}; summaries refresh every ${(o.fallbackMs ?? 15_000) / 1000} s instead`);
        this.degrade(p);
      }
    }
    this.poke(0);
  }

  private degrade(_p: string): void {
    if (this.fallback || this.closed) return;
    this.fallback = setInterval(() => this.poke(0), this.o.fallbackMs ?? 15_000);
    this.fallback.unref();
  }

  /** Something changed: refresh after a quiet spell, never more often than minIntervalMs. */
  poke(delay = this.o.debounceMs ?? 300): void {
    if (this.closed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    const wait = Math.max(delay, this.last + (this.o.minIntervalMs ?? 1000) - Date.now());
    this.timer = setTimeout(() => void this.run(), wait);
    this.timer.unref();
  }

  private async run(): Promise<void> {
    if (this.closed) return;
    this.running = true;
    this.again = false;
    try {
      await this.o.refresh();
    } catch (e) {
      this.o.log(`worktree summary: ${(e as Error).message}`);
    } finally {
      this.running = false;
      this.last = Date.now();
      if (this.again) this.poke();
    }
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    clearInterval(this.fallback);
    for (const w of this.watchers) w.close();
  }
}
