// History in two tiers: lines copied raw as they leave the screen (cheap, on the output path) and the compact store
// they are encoded into once the pane has been quiet for a moment, in slices, off the output path.
//
// Why: encoding costs a few µs a line, about a third of xterm's own parsing cost for a flood of styled text,
// while a copy of the line's cell words costs a fraction of that. During a flood most lines are evicted by the
// scrollback limit long before the pane goes quiet, so they are never encoded; the ≤ limit lines still kept
// are encoded afterwards (about 40 ms of CPU for 10,000 lines, in 1,000-line slices). The raw tier holds
// xterm's 12 bytes a cell, so a pane mid-flood costs what it did before the store; at rest it is compact.
// Every read of a stored line encodes what is pending first, so readers see one list.
import { HistoryStore, type StoredLine } from './store.js';
import { copyRaw, encodeLine, releaseCopy, type RawCopy } from './xterm-cells.js';

/** Quiet time after the last archived batch before pending lines are encoded. */
export const QUIET_MS = 50;
/** Lines encoded per slice (a few ms), then the event loop gets its turn. */
export const SLICE = 1000;

export class TieredStore {
  private readonly compact = new HistoryStore();
  private pending: RawCopy[] = [];
  /** Index of the oldest pending line in `pending`. */
  private head = 0;
  private timer: NodeJS.Timeout | NodeJS.Immediate | undefined;
  private busy = false;

  get count(): number {
    return this.compact.count + this.pending.length - this.head;
  }

  /** Lines waiting to be encoded (for stats and tests). */
  get pendingCount(): number {
    return this.pending.length - this.head;
  }

  /** A line that left the screen (xterm's own line object, from rawLineAt): copied now, encoded when the pane is quiet. */
  push(line: unknown): void {
    this.pending.push(copyRaw(line));
    this.busy = true;
    if (!this.timer) this.arm();
  }

  /** Encodes every pending line now. */
  flush(): void {
    this.encode(Infinity);
  }

  line(i: number): StoredLine | undefined {
    if (this.pendingCount > 0) this.flush();
    return this.compact.line(i);
  }

  dropOldest(k: number): void {
    const fromCompact = Math.min(k, this.compact.count);
    this.compact.dropOldest(fromCompact);
    const stop = Math.min(this.pending.length, this.head + (k - fromCompact));
    for (let i = this.head; i < stop; i++) releaseCopy(this.pending[i]);
    this.head = stop;
    this.tidy();
  }

  dropNewest(k: number): void {
    this.flush();
    this.compact.dropNewest(k);
  }

  clear(): void {
    this.compact.clear();
    for (let i = this.head; i < this.pending.length; i++) releaseCopy(this.pending[i]);
    this.pending = [];
    this.head = 0;
    this.disarm();
  }

  bytes(): number {
    let raw = 0;
    for (let i = this.head; i < this.pending.length; i++) raw += this.pending[i].end * 12;
    return this.compact.bytes() + raw;
  }

  private encode(max: number): void {
    const stop = Math.min(this.pending.length, this.head + max);
    for (let i = this.head; i < stop; i++) {
      encodeLine(this.pending[i], this.compact);
      releaseCopy(this.pending[i]);
    }
    this.head = stop;
    this.tidy();
  }

  /** Forgets encoded/dropped copies (their segments are freed once no line refers to them). */
  private tidy(): void {
    if (this.head === this.pending.length) {
      this.pending = [];
      this.head = 0;
      this.disarm();
    } else if (this.head > 4096 && this.head * 2 > this.pending.length) {
      this.pending = this.pending.slice(this.head);
      this.head = 0;
    }
  }

  private arm(): void {
    this.busy = false;
    const t = setTimeout(() => this.tick(), QUIET_MS);
    t.unref?.();
    this.timer = t;
  }

  private tick(): void {
    this.timer = undefined;
    if (this.pendingCount === 0) return;
    // Output still arriving: wait for quiet (the lines may yet be evicted unencoded).
    if (this.busy) return this.arm();
    this.encode(SLICE);
    if (this.pendingCount > 0) this.timer = setImmediate(() => this.tick());
  }

  private disarm(): void {
    if (!this.timer) return;
    clearTimeout(this.timer as NodeJS.Timeout);
    clearImmediate(this.timer as NodeJS.Immediate);
    this.timer = undefined;
  }
}
