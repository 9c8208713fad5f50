// History in two tiers: lines copied raw as they leave the screen (cheap, on the output path) and the compact store
// they are encoded into once the pane has been quiet for a moment, in slices, off the output path.
//
// Why: encoding costs a few µs a line, about a third of xterm's own parsing cost for a flood of styled text,
// while a copy of the line's cell words costs a fraction of that. During a flood most lines are evicted by the
// scrollback limit long before the pane goes quiet, so they are never encoded; the ≤ limit lines still kept
// are encoded afterwards (about 40 ms of CPU for 10,000 lines, in 1,000-line slices). The raw tier holds
// xterm's 12 bytes a cell (raw-ring.ts), so a pane mid-flood costs what it did before the store; once quiet its
// memory goes back to the OS and the pane is compact. Every read of a stored line encodes what is pending first,
// so readers see one list.
import { RawRing } from './raw-ring.js';
import { HistoryStore, type StoredLine } from './store.js';
import { cellsOf, copyRaw, encodeLine } from './xterm-cells.js';

/** Quiet time after the last archived batch before pending lines are encoded. */
export const QUIET_MS = 50;
/** Lines encoded per slice (a few ms), then the event loop gets its turn. */
export const SLICE = 1000;
/** Oldest lines encoded at once when the ring is full and may not grow (a pane wider or longer than its budget). */
const MAKE_ROOM = 64;

export class TieredStore {
  private readonly compact = new HistoryStore();
  /** Lines not encoded yet, newer than every compact line. */
  private readonly ring: RawRing;
  private timer: NodeJS.Timeout | NodeJS.Immediate | undefined;
  private busy = false;

  /** `maxRawWords`: the most the raw tier may take for this pane (its limit of full-width lines). */
  constructor(maxRawWords: () => number) {
    this.ring = new RawRing(maxRawWords);
  }

  get count(): number {
    return this.compact.count + this.ring.count;
  }

  /** Lines waiting to be encoded (for stats and tests). */
  get pendingCount(): number {
    return this.ring.count;
  }

  /** A line that left the screen (xterm's own line object, from rawLineAt): copied now, encoded when the pane is quiet. */
  push(line: unknown): void {
    while (!copyRaw(line, this.ring)) {
      // No room left in the raw tier's budget: encode the oldest lines, or this one at once when none are pending.
      if (this.ring.count === 0) {
        encodeLine(cellsOf(line), this.compact);
        break;
      }
      this.encode(MAKE_ROOM);
    }
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
    this.ring.shift(k - fromCompact);
  }

  dropNewest(k: number): void {
    this.flush();
    this.compact.dropNewest(k);
  }

  clear(): void {
    this.compact.clear();
    this.ring.free();
    this.disarm();
  }

  bytes(): number {
    return this.compact.bytes() + this.ring.bytes();
  }

  private encode(max: number): void {
    const n = Math.min(this.ring.count, max);
    for (let i = 0; i < n; i++) encodeLine(this.ring.at(i), this.compact);
    this.ring.shift(n);
  }

  private arm(): void {
    this.busy = false;
    const t = setTimeout(() => this.tick(), QUIET_MS);
    t.unref?.();
    this.timer = t;
  }

  /** While the ring is held: once output is quiet, encode it in slices, then give its memory back. */
  private tick(): void {
    this.timer = undefined;
    // Output still arriving: wait for quiet (the lines may yet be evicted unencoded).
    if (this.busy) return this.arm();
    this.encode(SLICE);
    if (this.pendingCount > 0) this.timer = setImmediate(() => this.tick());
    else this.ring.free();
  }

  private disarm(): void {
    if (!this.timer) return;
    clearTimeout(this.timer as NodeJS.Timeout);
    clearImmediate(this.timer as NodeJS.Immediate);
    this.timer = undefined;
  }
}
