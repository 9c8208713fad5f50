// Writes the session's snapshot: debounced after structural changes, throttled after output, periodic; one write at a time, off the critical path.
import type { Paths } from '../platform/paths.js';
import type { Capture } from './capture.js';
import { snapshotJson, writeSnapshotFile } from './store.js';

export interface WriterOptions {
  capture: Capture;
  paths: Pick<Paths, 'stateDir' | 'session'>;
  log(msg: string): void;
  /** After a structural change (a split, a close, a rename, zoom, focus). */
  debounceMs?: number;
  /** After output (history, a `cd`): once output has been quiet this long... */
  contentQuietMs?: number;
  /** ...or, while output goes on, at most this often. */
  contentMs?: number;
  /** And in any case this often, if anything changed. */
  periodicMs?: number;
  /** A structural write waits for output to pause this long (a flood in progress)... */
  floodGapMs?: number;
  /** ...but never longer than this after the change. */
  structuralMaxMs?: number;
}

export interface WriteStats {
  ms: number;
  bytes: number;
  at: number;
}

export class SnapshotWriter {
  private structuralTimer?: NodeJS.Timeout;
  private contentTimer?: NodeJS.Timeout;
  private readonly periodic: NodeJS.Timeout;
  private running?: Promise<WriteStats | undefined>;
  private again = false;
  private dirty = true;
  private disabled = false;
  private quietUntil = 0;
  /** When the oldest structural change not yet written was made (0: none). */
  private structuralAt = 0;
  /** First and last output since the last content write. */
  private contentFirst = 0;
  private contentLast = 0;
  last?: WriteStats;

  constructor(private readonly o: WriterOptions) {
    this.periodic = setInterval(() => {
      if (this.dirty) void this.write();
    }, o.periodicMs ?? 60_000);
    this.periodic.unref();
  }

  structural(): void {
    if (this.disabled) return;
    this.dirty = true;
    this.structuralAt ||= Date.now();
    if (this.structuralTimer) clearTimeout(this.structuralTimer);
    this.armStructural(Math.max(this.o.debounceMs ?? 250, this.quietUntil - Date.now()));
  }

  /**
   * A structural write reads every pane's history as well: taken while a pane floods, it re-reads and packs what the
   * flood has printed so far, in the flood's time (a new pane that `cat`s 50 MB: ~200 ms of the server's ~2.4 s of
   * CPU went to the snapshot the pane's creation asked for). So it waits for output to pause for floodGapMs (a prompt
   * or a redraw is done within it), at most structuralMaxMs after the change.
   */
  private armStructural(ms: number): void {
    this.structuralTimer = setTimeout(() => {
      this.structuralTimer = undefined;
      const now = Date.now();
      const gap = this.o.floodGapMs ?? 100;
      if (now - this.contentLast < gap && now - this.structuralAt < (this.o.structuralMaxMs ?? 3000)) return this.armStructural(gap);
      void this.write();
    }, ms);
    this.structuralTimer.unref();
  }

  content(): void {
    if (this.disabled) return;
    this.dirty = true;
    // Called for every parsed chunk of output: a stamp, and one timer that re-arms itself when it fires early.
    const now = Date.now();
    this.contentLast = now;
    if (!this.contentFirst) this.contentFirst = now;
    if (!this.contentTimer) this.armContent(now);
  }

  /**
   * A snapshot after output waits for the output to pause (a flooding pane would otherwise be re-read and packed
   * while it floods, costing the flood its throughput); during long output it is taken anyway every contentMs. A
   * snapshot that took long (big histories still changing) is not taken again soon: at most ~10 % of the time.
   */
  private armContent(now: number): void {
    const quiet = this.o.contentQuietMs ?? 1000;
    const most = Math.max(this.o.contentMs ?? 15_000, (this.last?.ms ?? 0) * 10);
    const due = Math.max(Math.min(this.contentLast + quiet, this.contentFirst + most), this.quietUntil);
    this.contentTimer = setTimeout(() => {
      this.contentTimer = undefined;
      const t = Date.now();
      const quietNow = this.contentLast + quiet, mostNow = this.contentFirst + most;
      if (t + 5 < Math.max(Math.min(quietNow, mostNow), this.quietUntil)) return this.armContent(t);
      this.contentFirst = 0;
      void this.write();
    }, Math.max(0, due - now));
    this.contentTimer.unref();
  }

  /** Just restored: the file on disk already says what the session is; skip the expensive rewrite while it repaints. */
  quietFor(ms: number): void {
    this.quietUntil = Date.now() + ms;
  }

  /** Writes now (after a write in flight); resolves with what it cost, or undefined when writing is off or failed. */
  write(): Promise<WriteStats | undefined> {
    if (this.disabled) return Promise.resolve(undefined);
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.dirty = false;
    this.structuralAt = 0;
    const run = (async () => {
      const t0 = performance.now();
      try {
        const snap = await this.o.capture.take();
        if (this.disabled) return undefined;
        const { bytes } = await writeSnapshotFile(this.o.paths, snapshotJson(snap));
        this.last = { ms: performance.now() - t0, bytes, at: Date.now() };
        return this.last;
      } catch (e) {
        this.o.log(`snapshot: could not write: ${(e as Error).message}`);
        return undefined;
      }
    })();
    this.running = run.finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        void this.write();
      }
    });
    return this.running;
  }

  /** Waits for the write in flight (if any), then writes once more: bounded by `timeoutMs`. */
  async flush(timeoutMs = 4000): Promise<WriteStats | undefined> {
    let t: NodeJS.Timeout | undefined;
    const run = (async () => {
      if (this.running) await this.running;
      return this.write();
    })();
    return Promise.race([run, new Promise<undefined>((r) => (t = setTimeout(() => r(undefined), timeoutMs)))]).finally(() => clearTimeout(t));
  }

  /** Resolves when no write is in flight. */
  async idle(): Promise<void> {
    while (this.running) await this.running.catch(() => undefined);
  }

  /** No more writes (the session ended by closing its last window, or `server stop --forget`). */
  disable(): void {
    this.dispose();
  }

  /** The session is ending: a write in flight is dropped too (its panes are being killed, it would save an emptied session). */
  dispose(): void {
    this.disabled = true;
    clearInterval(this.periodic);
    if (this.structuralTimer) clearTimeout(this.structuralTimer);
    if (this.contentTimer) clearTimeout(this.contentTimer);
  }
}
