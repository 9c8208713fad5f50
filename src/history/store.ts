// Compact storage for lines that left the terminal emulator: text, style runs and cell shapes packed in typed arrays.
//
// Lines live in chunks of CHUNK lines. Per line a chunk keeps its text (UTF-16 code units, one run of units
// per cell, right halves of wide characters omitted), its style runs ([first cell, fg word, bg word] in
// xterm's attribute encoding), its width in cells and a wrapped flag. A line whose cells are not all
// "one code unit, one column" (wide, combining, astral, width-0 cells) also keeps one 16-bit shape per cell
// (width << 8 | code units). For the bench's text this is ~400 bytes a line where xterm keeps 12 bytes a cell
// (2.4 KB for 200 columns). Lines leave oldest first (whole chunks are freed), or newest first (resize).

/** Lines per chunk: the unit of allocation and of freeing. */
export const CHUNK = 128;

/** Where the encoder writes one line: straight into the open chunk's arrays, from the offsets given. */
export interface LineSink {
  text: Uint16Array;
  /** First free unit of `text`. */
  t0: number;
  /** [first cell, fg, bg] per style run, in cell order; cells before the first run have default style. */
  runs: Uint32Array;
  /** First free run (index in runs, not in words). */
  r0: number;
  /** Room for `units` units from t0 on (combining sequences), keeping what is written; the (maybe new) text array. */
  more(units: number): Uint16Array;
}

/** What the encoder tells the store about the line it wrote. */
export interface LineMeta {
  nUnits: number;
  nRuns: number;
  nCells: number;
  /** Per stored cell: width << 8 | code units, or undefined when every cell is one unit wide one column. */
  shapes: Uint16Array | undefined;
  /** The line's width in cells (the terminal's columns when it was archived). */
  width: number;
  wrapped: boolean;
  /** Some cell was never written (its unit is 0, drawn as a blank). */
  nulls: boolean;
  /** Some width-0 cell is not the right half of a wide character (xterm prints its text as a cell of its own). */
  stray: boolean;
}

const WRAPPED = 1;
const COMPLEX = 2;
const NULLS = 4;
const STRAY = 8;

function grown<T extends Uint16Array | Uint32Array>(a: T, need: number, keep: number): T {
  if (need <= a.length) return a;
  const next = new (a.constructor as new (n: number) => T)(Math.max(need, a.length * 2));
  next.set(a.subarray(0, keep));
  return next;
}

/** A full chunk's growing arrays, handed to the next chunk: filling a chunk then makes no garbage but its exact copies. */
interface Spare { text: Uint16Array; runs: Uint32Array; shapes: Uint16Array | undefined }

class Chunk implements LineSink {
  n = 0;
  text: Uint16Array;
  textEnd = new Uint32Array(CHUNK);
  runs: Uint32Array;
  runEnd = new Uint32Array(CHUNK);
  shapes: Uint16Array | undefined;
  shapeEnd: Uint32Array | undefined;
  width = new Uint16Array(CHUNK);
  flags = new Uint8Array(CHUNK);
  t0 = 0;
  r0 = 0;

  constructor(spare: Spare | undefined) {
    this.text = spare?.text ?? new Uint16Array(CHUNK * 64);
    this.runs = spare?.runs ?? new Uint32Array(CHUNK * 12);
    this.shapes = spare?.shapes;
  }

  textStart(i: number): number { return i === 0 ? 0 : this.textEnd[i - 1]; }
  runStart(i: number): number { return i === 0 ? 0 : this.runEnd[i - 1]; }
  shapeStart(i: number): number { return i === 0 || !this.shapeEnd ? 0 : this.shapeEnd[i - 1]; }

  /** Room for a line of up to `units` code units and `runs` style runs. */
  reserve(units: number, runs: number): void {
    const i = this.n;
    this.t0 = this.textStart(i);
    this.r0 = this.runStart(i);
    this.text = grown(this.text, this.t0 + units, this.t0);
    this.runs = grown(this.runs, (this.r0 + runs) * 3, this.r0 * 3);
  }

  more(units: number): Uint16Array {
    this.text = grown(this.text, this.t0 + units, this.text.length);
    return this.text;
  }

  /** Ends the line written since reserve(); a chunk that becomes full returns its growing arrays for the next one. */
  commit(m: LineMeta): Spare | undefined {
    const i = this.n;
    this.textEnd[i] = this.t0 + m.nUnits;
    this.runEnd[i] = this.r0 + m.nRuns;
    if (m.shapes || this.shapeEnd) {
      const s0 = this.shapeStart(i);
      if (!this.shapeEnd) this.shapeEnd = new Uint32Array(CHUNK); // lines before this one have no shapes
      if (m.shapes) {
        this.shapes = grown(this.shapes ?? new Uint16Array(1024), s0 + m.nCells, s0);
        this.shapes.set(m.shapes.subarray(0, m.nCells), s0);
      }
      this.shapeEnd[i] = s0 + (m.shapes ? m.nCells : 0);
    }
    this.width[i] = Math.min(0xffff, m.width);
    this.flags[i] = (m.wrapped ? WRAPPED : 0) | (m.shapes ? COMPLEX : 0) | (m.nulls ? NULLS : 0) | (m.stray ? STRAY : 0);
    this.n++;
    return this.n === CHUNK ? this.fit() : undefined;
  }

  /** Exact-size copies replace the growing arrays, which are returned for reuse. */
  private fit(): Spare {
    const n = this.n;
    const spare: Spare = { text: this.text, runs: this.runs, shapes: this.shapes };
    this.text = this.text.slice(0, this.textStart(n));
    this.runs = this.runs.slice(0, this.runStart(n) * 3);
    if (this.shapes) this.shapes = this.shapes.slice(0, this.shapeStart(n));
    return spare;
  }

  bytes(): number {
    return this.text.byteLength + this.runs.byteLength + (this.shapes?.byteLength ?? 0) + (this.shapeEnd?.byteLength ?? 0) +
      this.textEnd.byteLength + this.runEnd.byteLength + this.width.byteLength + this.flags.byteLength;
  }
}

/** Read access to one stored line (what archived-line.ts renders from). */
export interface StoredLine {
  text: Uint16Array;
  textStart: number;
  textEnd: number;
  runs: Uint32Array;
  runStart: number;
  runEnd: number;
  /** Per-cell shapes, or undefined when every cell is one code unit wide one column. */
  shapes: Uint16Array | undefined;
  shapeStart: number;
  nCells: number;
  width: number;
  wrapped: boolean;
  nulls: boolean;
  stray: boolean;
}

/** The chunked store; a line is written with open() (the encoder fills the sink) then commit(). */
export class HistoryStore {
  private chunks: Chunk[] = [];
  /** Lines already dropped from the front of chunks[0]. */
  private head = 0;
  private spare: Spare | undefined;

  get count(): number {
    const c = this.chunks;
    return c.length === 0 ? 0 : (c.length - 1) * CHUNK + c[c.length - 1].n - this.head;
  }

  /** The chunk the next line goes into, with room for `units` code units and `runs` runs; then commit(). */
  open(units: number, runs: number): LineSink {
    let last = this.chunks[this.chunks.length - 1];
    if (!last || last.n === CHUNK) {
      this.chunks.push((last = new Chunk(this.spare)));
      this.spare = undefined;
    }
    last.reserve(units, runs);
    return last;
  }

  commit(m: LineMeta): void {
    this.spare = this.chunks[this.chunks.length - 1].commit(m) ?? this.spare;
  }

  /** Drops the k oldest lines (the scrollback limit). */
  dropOldest(k: number): void {
    this.head += Math.max(0, Math.min(k, this.count));
    // Only the last chunk can be partly filled, so a dead first chunk is a whole one (or the only one).
    while (this.chunks.length && this.head >= this.chunks[0].n) {
      this.head -= this.chunks[0].n;
      this.chunks.shift();
    }
  }

  /** Drops the k newest lines (they went back to the emulator on a resize). */
  dropNewest(k: number): void {
    let left = Math.max(0, Math.min(k, this.count));
    while (left > 0) {
      const last = this.chunks[this.chunks.length - 1];
      const floor = this.chunks.length === 1 ? this.head : 0;
      const take = Math.min(left, last.n - floor);
      last.n -= take;
      left -= take;
      if (last.n <= floor) {
        this.chunks.pop();
        if (this.chunks.length === 0) this.head = 0;
      }
    }
  }

  clear(): void {
    this.chunks = [];
    this.head = 0;
    this.spare = undefined;
  }

  /** Line i (0 = oldest), or undefined. */
  line(i: number): StoredLine | undefined {
    if (!(i >= 0 && i < this.count)) return undefined;
    const g = this.head + i;
    const c = this.chunks[(g / CHUNK) | 0];
    const j = g % CHUNK;
    const complex = (c.flags[j] & COMPLEX) !== 0;
    const textStart = c.textStart(j);
    const textEnd = c.textEnd[j];
    const shapeStart = complex ? c.shapeStart(j) : 0;
    return {
      text: c.text, textStart, textEnd,
      runs: c.runs, runStart: c.runStart(j), runEnd: c.runEnd[j],
      shapes: complex ? c.shapes : undefined, shapeStart,
      nCells: complex ? c.shapeEnd![j] - shapeStart : textEnd - textStart,
      width: c.width[j],
      wrapped: (c.flags[j] & WRAPPED) !== 0,
      nulls: (c.flags[j] & NULLS) !== 0,
      stray: (c.flags[j] & STRAY) !== 0,
    };
  }

  /** Bytes held by the typed arrays (the store's whole footprint, bar a few objects per chunk). */
  bytes(): number {
    let n = 0;
    for (const c of this.chunks) n += c.bytes();
    return n;
  }
}

/** Text of units [a, b) as a string (code units copied as they are, lone surrogates included). */
export function unitsToString(u: Uint16Array, a: number, b: number): string {
  if (b - a <= 2) return b - a === 1 ? String.fromCharCode(u[a]) : b - a === 2 ? String.fromCharCode(u[a], u[a + 1]) : '';
  return Buffer.from(u.buffer, u.byteOffset + a * 2, (b - a) * 2).toString('utf16le');
}
