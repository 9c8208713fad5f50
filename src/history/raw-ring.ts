// The raw tier's memory: lines copied as they left the screen, oldest first, in one ring of cell words per pane, unmapped when the pane is quiet.
//
// Why a ring in one 32 MiB buffer: a flood copies megabytes of cells that live until the pane is quiet. Small
// buffers come from glibc's heap (its mmap threshold rises to the size of whatever big block was freed last),
// where freed copies stay resident, scattered among live allocations: RSS kept the flood's high-water mark.
// Blocks of 32 MiB and more are always mmapped, and pages never written cost nothing, so the ring uses the first
// `cap` words of one such buffer and grows by doubling (up to what `limit` lines of the pane's width need).
// Freeing does not wait for the garbage collector (a quiet server may not collect for minutes): the buffer is
// transferred to a closed MessagePort, which detaches it and drops its memory at once.
import type { LineSide, RawCells, RawSink } from './xterm-cells.js';

/** Words in the buffer behind a ring: 32 MiB, glibc's largest mmap threshold, so it is always mmapped. */
const BUFFER_WORDS = 8 << 20;
/** Words a ring starts with (1 MiB, less for a pane that needs less); it doubles when full. */
const INITIAL_WORDS = 1 << 18;
const MIN_WORDS = 1 << 10;
/** Words all rings of the process may use together (128 MiB): past it, floods encode lines as they arrive. */
const TOTAL_WORDS = 32 << 20;
const EMPTY = new Uint32Array(0);

/** Words of all open rings (their `cap`), against TOTAL_WORDS. */
let reserved = 0;

let sink: MessagePort | undefined;
/** Frees a buffer's memory now: transferring it detaches it; the closed port drops it. */
function unmap(a: Uint32Array): void {
  try {
    if (!sink) {
      const c = new MessageChannel();
      c.port2.close();
      sink = c.port1;
    }
    sink.postMessage(null, [a.buffer]);
  } catch {
    // Left to the garbage collector.
  }
}

/** Words the rings of this process hold (for tests). */
export function ringWords(): number {
  return reserved;
}

export class RawRing implements RawSink {
  d: Uint32Array = EMPTY;
  /** Lines held. */
  count = 0;
  /** Words in use of `d` (0: no buffer). */
  private cap = 0;
  /** Virtual position of the next line: a line at virtual v sits at d[v % cap]; never wraps inside a line. */
  private vTail = 0;
  /** Sequence number of the oldest line; line slots are seq & (lines - 1). */
  private first = 0;
  private vbase = new Float64Array(0);
  private cells = new Uint32Array(0);
  private width = new Uint32Array(0);
  private wrapped = new Uint8Array(0);
  /** Side tables of lines that have them, by slot (most lines have none). */
  private side: Array<LineSide | undefined> = [];
  private sides = 0;
  private placed = 0;
  private readonly view: RawCells = { d: EMPTY, base: 0, end: 0, width: 0, wrapped: false, combined: undefined, ext: undefined };

  /** `maxWords`: what the pane's `limit` lines may need at most (the ring never grows past it). */
  constructor(private readonly maxWords: () => number) {}

  /** Where the next line's `words` go in `d`, or -1 when the ring is full (the caller encodes its oldest lines). */
  place(words: number): number {
    if (this.cap === 0 && !this.open()) return -1;
    for (;;) {
      const cap = this.cap;
      let v = this.vTail;
      const p = v % cap;
      if (p + words > cap) v += cap - p; // to the start: a line is never split
      const v0 = this.count ? this.vbase[this.first & (this.vbase.length - 1)] : v;
      if (v + words - v0 <= cap) {
        this.placed = v;
        return v % cap;
      }
      if (!this.grow()) return -1;
    }
  }

  commit(cells: number, width: number, wrapped: boolean, side: LineSide | undefined): void {
    if (this.count === this.vbase.length) this.moreLines();
    const seq = this.first + this.count;
    const s = seq & (this.vbase.length - 1);
    this.vbase[s] = this.placed;
    this.cells[s] = cells;
    this.width[s] = width;
    this.wrapped[s] = wrapped ? 1 : 0;
    if (side) {
      this.side[s] = side;
      this.sides++;
    }
    this.count++;
    this.vTail = this.placed + cells * 3;
  }

  /** The i-th oldest line, valid until the ring changes (one object, reused). */
  at(i: number): RawCells {
    const seq = this.first + i;
    const s = seq & (this.vbase.length - 1);
    const v = this.view;
    v.d = this.d;
    v.base = this.vbase[s] % this.cap;
    v.end = this.cells[s];
    v.width = this.width[s];
    v.wrapped = this.wrapped[s] === 1;
    const side = this.sides ? this.side[s] : undefined;
    v.combined = side?.combined;
    return v;
  }

  /** Forgets the k oldest lines (encoded, or dropped by the limit). */
  shift(k: number): void {
    k = Math.max(0, Math.min(k, this.count));
    const mask = this.vbase.length - 1;
    for (let i = 0; i < k && this.sides; i++) {
      const s = (this.first + i) & mask;
      if (this.side[s]) {
        this.side[s] = undefined;
        this.sides--;
      }
    }
    this.first += k;
    this.count -= k;
    // Empty: start again at the front, so bursts reuse the pages already written.
    if (this.count === 0) this.first = this.vTail = 0;
  }

  /** Bytes of cells held. */
  bytes(): number {
    return this.count ? (this.vTail - this.vbase[this.first & (this.vbase.length - 1)]) * 4 : 0;
  }

  /** Gives the buffer back (lines still held are forgotten). */
  free(): void {
    this.shift(this.count);
    if (this.cap === 0) return;
    unmap(this.d);
    reserved -= this.cap;
    this.cap = 0;
    this.d = this.view.d = EMPTY;
    this.vbase = new Float64Array(0);
    this.cells = new Uint32Array(0);
    this.width = new Uint32Array(0);
    this.wrapped = new Uint8Array(0);
    this.side = [];
  }

  private open(): boolean {
    let cap = MIN_WORDS;
    while (cap < INITIAL_WORDS && cap < this.maxWords()) cap *= 2;
    if (reserved + cap > TOTAL_WORDS) return false;
    this.d = new Uint32Array(BUFFER_WORDS);
    this.cap = cap;
    reserved += cap;
    return true;
  }

  /** Doubles the ring: the lines past its end move up behind the others, so virtual positions stay valid. */
  private grow(): boolean {
    const cap = this.cap;
    const next = cap * 2;
    if (next > BUFFER_WORDS || cap >= this.maxWords() || reserved + cap > TOTAL_WORDS) return false;
    if (this.count) {
      const mask = this.vbase.length - 1;
      const v0 = this.vbase[this.first & mask];
      const lap = v0 - (v0 % cap);
      const wrappedWords = this.vTail - (lap + cap);
      if (wrappedWords > 0) this.d.copyWithin(cap, 0, wrappedWords);
      for (let i = 0; i < this.count; i++) this.vbase[(this.first + i) & mask] -= lap;
      this.vTail -= lap;
    } else {
      this.vTail = 0;
    }
    this.cap = next;
    reserved += cap;
    return true;
  }

  private moreLines(): void {
    const n = Math.max(1024, this.vbase.length * 2);
    const vbase = new Float64Array(n), cells = new Uint32Array(n), width = new Uint32Array(n), wrapped = new Uint8Array(n);
    const side: Array<LineSide | undefined> = new Array(n);
    const om = this.vbase.length - 1, nm = n - 1;
    for (let i = 0; i < this.count; i++) {
      const seq = this.first + i;
      const a = seq & om, b = seq & nm;
      vbase[b] = this.vbase[a];
      cells[b] = this.cells[a];
      width[b] = this.width[a];
      wrapped[b] = this.wrapped[a];
      side[b] = this.side[a];
    }
    this.side = side;
    this.vbase = vbase;
    this.cells = cells;
    this.width = width;
    this.wrapped = wrapped;
  }
}
