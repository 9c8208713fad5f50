// History in two tiers: lines copied raw as they leave the screen (cheap, on the output path) and the compact store
// they are encoded into once the pane has been quiet for a moment, in slices, off the output path.
//
// Why: encoding costs a few µs a line, about a third of xterm's own parsing cost for a flood of styled text,
// while a copy of the line's cell words costs a fraction of that. During a flood most lines are evicted by the
// scrollback limit long before the pane goes quiet, so they are never encoded; the ≤ limit lines still kept
// are encoded afterwards (about 40 ms of CPU for 10,000 lines, in slices). The raw tier holds
// xterm's 12 bytes a cell (raw-ring.ts), so a pane mid-flood costs what it did before the store; once quiet its
// memory goes back to the OS and the pane is compact. Every read of a stored line encodes what is pending first,
// so readers see one list.
import { RawRing } from './raw-ring.js';
import { HistoryStore, type StoredLine } from './store.js';
import { cellsOf, copyRaw, encodeLine } from './xterm-cells.js';

/** Quiet time after the last archived batch before pending lines are encoded. */
export const QUIET_MS = 50;
/**
 * Main-thread time the encoding of every pane together may take in one turn of the event loop. Per pane it was 1,000
 * lines a turn, so 16 panes going quiet at once (a restore, `cat` in every pane, a snapshot's bench) encoded 16 slices
 * in one turn: 40-120 ms. One queue for all panes now, round robin, 100 lines a step.
 */
export const TURN_MS = 4;
const STEP = 100;
/** Oldest lines encoded at once when the ring is full and may not grow (a pane wider or longer than its budget). */
const MAKE_ROOM = 64;

export class TieredStore {
  private readonly compact = new HistoryStore();
  /** Lines not encoded yet, newer than every compact line. */
  private readonly ring: RawRing;
  private timer: NodeJS.Timeout | undefined;
  private busy = false;
  /** More output is already read and waiting to be parsed (hold()): not quiet, however long its turn takes. */
  private held = false;
  /** Waiting in the shared encoder's queue. */
  private queued = false;

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
    if (!this.timer && !this.queued) this.arm();
  }

  /**
   * The pane's output is waiting in castellan's parse queue (src/server/parse-feed.ts): the pane is not quiet, even
   * when its next piece comes later than QUIET_MS (sixteen panes taking turns on a loaded machine). Without it, each
   * pane of a restore (16 x 10 000 lines, load 5-10) was taken for quiet between its pieces: its lines were encoded,
   * its raw tier freed and allocated again, piece after piece: 16-20 s of CPU instead of 1.5 s.
   */
  hold(on: boolean): void {
    if (this.held === on) return;
    this.held = on;
    if (!on && this.ring.count > 0 && !this.timer && !this.queued) this.arm();
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

  /** While the ring is held: once output is quiet, its lines are encoded by the shared encoder, a step at a time. */
  private tick(): void {
    this.timer = undefined;
    // Output still arriving: wait for quiet (the lines may yet be evicted unencoded).
    if (this.busy || this.held) return this.arm();
    this.queued = true;
    encoder.add(this);
  }

  /** One step for the shared encoder: true while lines are left. Output that came back stops it until quiet again. */
  step(): boolean {
    if (this.busy || this.held) {
      this.queued = false;
      this.arm();
      return false;
    }
    this.encode(STEP);
    if (this.pendingCount > 0) return true;
    this.queued = false;
    this.ring.free();
    return false;
  }

  private disarm(): void {
    if (this.queued) encoder.delete(this);
    this.queued = false;
    if (!this.timer) return;
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/** Every pane's pending lines, encoded in turns of at most TURN_MS, round robin (a store's step is 100 lines). */
class SharedEncoder {
  /** In turn order: a store with lines left goes back to the end. */
  private readonly waiting = new Set<TieredStore>();
  private scheduled = false;

  add(s: TieredStore): void {
    this.waiting.add(s);
    this.schedule();
  }

  delete(s: TieredStore): void {
    this.waiting.delete(s);
  }

  private schedule(): void {
    if (this.scheduled || this.waiting.size === 0) return;
    this.scheduled = true;
    setImmediate(() => this.turn());
  }

  private turn(): void {
    this.scheduled = false;
    const t0 = performance.now();
    // A Set visits what is added during the loop: a store put back at the end comes round again in this turn.
    for (const s of this.waiting) {
      this.waiting.delete(s);
      if (s.step()) this.waiting.add(s);
      if (performance.now() - t0 >= TURN_MS) break;
    }
    this.schedule();
  }
}

const encoder = new SharedEncoder();
