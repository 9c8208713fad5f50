// Compact storage for lines that left the terminal emulator: text, style runs and cell shapes packed in typed arrays.
//
// Lines live in chunks of CHUNK lines. Per line a chunk keeps its text (code units, one run of units
// per cell, right halves of wide characters omitted), its style runs (first cell, and an index into the chunk's
// palette of distinct [fg, bg] pairs in xterm's attribute encoding), its width in cells and a wrapped flag. A line
// whose cells are not all "one code unit, one column" (wide, combining, astral, width-0 cells) also keeps one 16-bit
// shape per cell (width << 8 | code units). A full chunk is frozen into the narrowest arrays that hold it: Latin-1
// text in bytes, run starts in bytes for lines under 256 columns, style indices in bytes for up to 256 styles (or
// more, the rarely used ones listed apart: styleBytes).
// Why a palette: output coloured word by word (diffs, agent logs) has a run every few cells, and a run costing
// 12 bytes (first cell, fg, bg as 32-bit words) made such a line cost more than tmux's 4 bytes a cell; a run now
// costs 2 bytes (3 past 256 columns), and a chunk's few hundred distinct styles 8 bytes each. A 200-column line of
// bench/sections/memory-dense.ts's dense file (60 runs) is ~375 bytes (it was 1169) where xterm keeps 12 bytes a cell. Lines leave oldest first (whole chunks are freed), or newest first (resize).

/** Lines per chunk: the unit of allocation and of freeing. */
export const CHUNK = 128;
/** Cells of a line the store keeps (run starts are 16-bit); wider lines are cut there, as their width is. */
export const MAX_CELLS = 0xffff;

/** Where the encoder writes one line: straight into the open chunk's arrays, from the offsets given. */
export interface LineSink {
  text: Uint16Array;
  /** First free unit of `text`. */
  t0: number;
  /** First cell of each style run, in cell order; cells before the first run have default style. */
  runAt: Uint16Array;
  /** Each run's style: an index into the chunk's palette (style()). */
  runStyle: Uint32Array;
  /** First free run. */
  r0: number;
  /** Room for `units` units from t0 on (combining sequences), keeping what is written; the (maybe new) text array. */
  more(units: number): Uint16Array;
  /** The palette index of the style fg/bg (xterm's attribute words), added when new. */
  style(fg: number, bg: number): number;
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
  /** Every unit of the line's text is below 256 (it is stored in bytes). */
  latin1: boolean;
}

const WRAPPED = 1;
const COMPLEX = 2;
const NULLS = 4;
const STRAY = 8;
/** A run's style index in a byte that says "look in the chunk's overflow list" (Chunk.styleBytes). */
export const ESCAPE = 255;
/** The line's text is UTF-16 units (some unit is past Latin-1), not bytes. */
const WIDE = 16;

type Growable = Uint8Array | Uint16Array | Uint32Array;

function grown<T extends Growable>(a: T, need: number, keep: number): T {
  if (need <= a.length) return a;
  const next = new (a.constructor as new (n: number) => T)(Math.max(need, a.length * 2));
  next.set(a.subarray(0, keep));
  return next;
}

/** An exact-size copy of a[0, n) in the narrowest unsigned array that holds its values (a full chunk is frozen so). */
function narrowed(a: Growable, n: number): Growable {
  let max = 0;
  for (let i = 0; i < n; i++) if (a[i] > max) max = a[i];
  const to = max < 0x100 ? Uint8Array : max < 0x10000 ? Uint16Array : Uint32Array;
  if (a instanceof to) return a.slice(0, n);
  const out = new to(n);
  out.set(a.subarray(0, n));
  return out;
}

/** A frozen (narrowed) array made writable again as `to` (a full chunk that takes lines again after dropNewest). */
function widened<T extends Uint16Array | Uint32Array>(a: Growable, to: new (n: number) => T): T {
  if (a instanceof to) return a;
  const out = new to(Math.max(a.length, 16));
  out.set(a);
  return out;
}

/** A full chunk's growing arrays, handed to the next chunk: filling a chunk then makes no garbage but its exact copies. */
interface Spare { bytes: Uint8Array; runAt: Uint16Array; runStyle: Uint32Array; palette: Uint32Array; shapes: Uint16Array | undefined }

/**
 * The open chunk's style lookup: (fg, bg) to palette index, open addressing over the chunk's palette. One per store;
 * rebuilt when a different chunk becomes the open one.
 */
class StyleIndex {
  private slots = new Int32Array(256);
  private used = 0;
  owner: Chunk | undefined;

  reset(c: Chunk): void {
    this.owner = c;
    if (this.used) this.slots.fill(0);
    this.used = 0;
    for (let i = 0; i < c.nStyles; i++) this.insert(c.palette, i);
  }

  find(palette: Uint32Array, fg: number, bg: number): number {
    const mask = this.slots.length - 1;
    for (let h = hash(fg, bg) & mask; ; h = (h + 1) & mask) {
      const v = this.slots[h];
      if (v === 0) return -1;
      if (palette[(v - 1) * 2] === fg && palette[(v - 1) * 2 + 1] === bg) return v - 1;
    }
  }

  insert(palette: Uint32Array, i: number): void {
    if ((this.used + 1) * 2 > this.slots.length) {
      const old = this.slots;
      this.slots = new Int32Array(old.length * 2);
      this.used = 0;
      for (const v of old) if (v) this.put(palette, v - 1);
    }
    this.put(palette, i);
  }

  private put(palette: Uint32Array, i: number): void {
    const mask = this.slots.length - 1;
    let h = hash(palette[i * 2], palette[i * 2 + 1]) & mask;
    while (this.slots[h] !== 0) h = (h + 1) & mask;
    this.slots[h] = i + 1;
    this.used++;
  }
}

const hash = (fg: number, bg: number) => (Math.imul(fg, 0x9e3779b1) ^ Math.imul(bg ^ (bg >>> 15), 0x85ebca77)) >>> 7;

/** Where the encoder writes a line's units (UTF-16) before commit() stores them in the chunk, as bytes when they fit. */
let stage = new Uint16Array(1024);

class Chunk implements LineSink {
  n = 0;
  /**
   * Text of the chunk's lines: a line whose units all fit in a byte (Latin-1) as bytes, any other line as UTF-16
   * units from an even offset (read through `wide`, a 16-bit view of the same memory). textEnd: each line's end byte.
   */
  bytes: Uint8Array;
  textEnd = new Uint32Array(CHUNK);
  private wide16: Uint16Array | undefined;
  runAt: Uint16Array;
  runStyle: Uint32Array;
  runEnd = new Uint32Array(CHUNK);
  /** Distinct styles of the chunk's runs: [fg, bg] pairs (xterm's attribute words). */
  palette: Uint32Array;
  nStyles = 0;
  /** Frozen chunks of many styles: [run, palette index] of each run whose runStyle is ESCAPE (styleBytes()). */
  over: Uint32Array | undefined;
  shapes: Uint16Array | undefined;
  shapeEnd: Uint32Array | undefined;
  width = new Uint16Array(CHUNK);
  flags = new Uint8Array(CHUNK);
  readonly t0 = 0;
  r0 = 0;
  /** Run arrays are narrowed when the chunk is full: they are made writable again if it takes lines again. */
  private frozen = false;

  constructor(spare: Spare | undefined, private readonly index: StyleIndex) {
    this.bytes = spare?.bytes ?? new Uint8Array(CHUNK * 128);
    this.runAt = spare?.runAt ?? new Uint16Array(CHUNK * 8);
    this.runStyle = spare?.runStyle ?? new Uint32Array(CHUNK * 8);
    this.palette = spare?.palette ?? new Uint32Array(64);
    this.shapes = spare?.shapes;
  }

  /** The encoder's view: it writes units from t0 (0) of the stage. */
  get text(): Uint16Array { return stage; }

  /** The chunk's text as 16-bit units (wide lines are read through it; units at textStart/2). */
  get wide(): Uint16Array {
    const b = this.bytes;
    if (!this.wide16 || this.wide16.buffer !== b.buffer) this.wide16 = new Uint16Array(b.buffer, b.byteOffset, b.byteLength >> 1);
    return this.wide16;
  }

  textStart(i: number): number { return i === 0 ? 0 : this.textEnd[i - 1]; }
  runStart(i: number): number { return i === 0 ? 0 : this.runEnd[i - 1]; }
  shapeStart(i: number): number { return i === 0 || !this.shapeEnd ? 0 : this.shapeEnd[i - 1]; }

  /** Room for a line of up to `units` code units and `runs` style runs. */
  reserve(units: number, runs: number): void {
    if (this.frozen) this.thaw();
    if (this.index.owner !== this) this.index.reset(this);
    if (stage.length < units) stage = new Uint16Array(units * 2);
    this.r0 = this.runStart(this.n);
    this.runAt = grown(this.runAt, this.r0 + runs, this.r0);
    this.runStyle = grown(this.runStyle, this.r0 + runs, this.r0);
  }

  more(units: number): Uint16Array {
    stage = grown(stage, units, stage.length);
    return stage;
  }

  style(fg: number, bg: number): number {
    const found = this.index.find(this.palette, fg, bg);
    if (found >= 0) return found;
    const i = this.nStyles++;
    this.palette = grown(this.palette, this.nStyles * 2, i * 2);
    this.palette[i * 2] = fg;
    this.palette[i * 2 + 1] = bg;
    this.index.insert(this.palette, i);
    return i;
  }

  /** Ends the line written since reserve(); a chunk that becomes full returns its growing arrays for the next one. */
  commit(m: LineMeta): Spare | undefined {
    const i = this.n;
    const n = m.nUnits;
    let b0 = this.textStart(i);
    const wide = !m.latin1;
    if (wide) b0 += b0 & 1;
    const end = b0 + (wide ? n * 2 : n);
    this.bytes = grown(this.bytes, end, this.textStart(i));
    if (wide) this.wide.set(stage.subarray(0, n), b0 >> 1);
    else this.bytes.set(stage.subarray(0, n), b0);
    this.textEnd[i] = end;
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
    this.flags[i] = (m.wrapped ? WRAPPED : 0) | (m.shapes ? COMPLEX : 0) | (m.nulls ? NULLS : 0) | (m.stray ? STRAY : 0) | (wide ? WIDE : 0);
    this.n++;
    return this.n === CHUNK ? this.fit() : undefined;
  }

  /** Exact-size copies (run arrays narrowed) replace the growing arrays, which are returned for reuse. */
  private fit(): Spare {
    const n = this.n;
    const spare: Spare = { bytes: this.bytes, runAt: this.runAt, runStyle: this.runStyle, palette: this.palette, shapes: this.shapes };
    const runs = this.runStart(n);
    this.bytes = this.bytes.slice(0, this.textStart(n));
    // Typed as the open chunk's arrays; readers only index them, which a narrower array answers the same.
    this.runAt = narrowed(this.runAt, runs) as Uint16Array;
    if (!this.styleBytes(runs)) {
      this.runStyle = narrowed(this.runStyle, runs) as Uint32Array;
      this.palette = this.palette.slice(0, this.nStyles * 2);
    }
    if (this.shapes) this.shapes = this.shapes.slice(0, this.shapeStart(n));
    this.frozen = true;
    if (this.index.owner === this) this.index.owner = undefined;
    return spare;
  }

  /**
   * Style indices in bytes for a chunk of more than 256 styles, when few runs use the rarer ones: the palette is
   * reordered by use, the 255 most used styles are indexed in a byte, and a run of any other has 255 there and its
   * index in `over` ([run, index] pairs in run order). A word-by-word coloured chunk has ~270 styles of which a few
   * dozen are used once or twice: 1 byte a run instead of 2. False (nothing changed) when it would not pay.
   */
  private styleBytes(runs: number): boolean {
    const k = this.nStyles;
    if (k <= 256) return false;
    const uses = new Uint32Array(k);
    const st = this.runStyle;
    for (let r = 0; r < runs; r++) uses[st[r]]++;
    const order = Array.from({ length: k }, (_, i) => i).sort((a, b) => uses[b] - uses[a] || a - b);
    let rare = 0;
    for (let i = ESCAPE; i < k; i++) rare += uses[order[i]];
    // Bytes: one per run plus 8 per rare run, against two per run.
    if (runs + rare * 8 >= runs * 2) return false;
    const to = new Uint32Array(k);
    const palette = new Uint32Array(k * 2);
    for (let i = 0; i < k; i++) {
      to[order[i]] = i;
      palette[i * 2] = this.palette[order[i] * 2];
      palette[i * 2 + 1] = this.palette[order[i] * 2 + 1];
    }
    const small = new Uint8Array(runs);
    const over = new Uint32Array(rare * 2);
    let o = 0;
    for (let r = 0; r < runs; r++) {
      const v = to[st[r]];
      if (v < ESCAPE) small[r] = v;
      else {
        small[r] = ESCAPE;
        over[o++] = r;
        over[o++] = v;
      }
    }
    this.runStyle = small as unknown as Uint32Array;
    this.palette = palette;
    this.over = over;
    return true;
  }

  /** Writable again (lines were dropped from a full chunk, and new ones come). */
  private thaw(): void {
    this.runAt = widened(this.runAt, Uint16Array);
    if (this.over) {
      const st = widened(this.runStyle, Uint32Array);
      for (let o = 0; o < this.over.length; o += 2) st[this.over[o]] = this.over[o + 1];
      this.runStyle = st;
      this.over = undefined;
    } else this.runStyle = widened(this.runStyle, Uint32Array);
    this.frozen = false;
  }

  bytesHeld(): number {
    return this.bytes.byteLength + this.runAt.byteLength + this.runStyle.byteLength + this.palette.byteLength + (this.over?.byteLength ?? 0) +
      (this.shapes?.byteLength ?? 0) + (this.shapeEnd?.byteLength ?? 0) +
      this.textEnd.byteLength + this.runEnd.byteLength + this.width.byteLength + this.flags.byteLength;
  }
}

/** Read access to one stored line (what archived-line.ts renders from). */
export interface StoredLine {
  /** UTF-16 units, or Latin-1 bytes (a chunk whose units all fit in a byte). */
  text: Uint8Array | Uint16Array;
  textStart: number;
  textEnd: number;
  /** Runs [runStart, runEnd): first cell in runAt, style in runStyle, an index of [fg, bg] pairs in palette. */
  runAt: Uint8Array | Uint16Array;
  runStyle: Uint8Array | Uint16Array | Uint32Array;
  palette: Uint32Array;
  /** [run, palette index] pairs, by run, for runs whose runStyle is ESCAPE; undefined when runStyle holds every index. */
  over: Uint32Array | undefined;
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
  private readonly index = new StyleIndex();

  get count(): number {
    const c = this.chunks;
    return c.length === 0 ? 0 : (c.length - 1) * CHUNK + c[c.length - 1].n - this.head;
  }

  /** The chunk the next line goes into, with room for `units` code units and `runs` runs; then commit(). */
  open(units: number, runs: number): LineSink {
    let last = this.chunks[this.chunks.length - 1];
    if (!last || last.n === CHUNK) {
      this.chunks.push((last = new Chunk(this.spare, this.index)));
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
    this.index.owner = undefined;
  }

  /** Line i (0 = oldest), or undefined. */
  line(i: number): StoredLine | undefined {
    if (!(i >= 0 && i < this.count)) return undefined;
    const g = this.head + i;
    const c = this.chunks[(g / CHUNK) | 0];
    const j = g % CHUNK;
    const complex = (c.flags[j] & COMPLEX) !== 0;
    const wide = (c.flags[j] & WIDE) !== 0;
    const b0 = c.textStart(j);
    // A wide line starts at the first even byte; its units are read through the 16-bit view.
    const textStart = wide ? (b0 + 1) >> 1 : b0;
    const textEnd = wide ? c.textEnd[j] >> 1 : c.textEnd[j];
    const shapeStart = complex ? c.shapeStart(j) : 0;
    return {
      text: wide ? c.wide : c.bytes, textStart, textEnd,
      runAt: c.runAt, runStyle: c.runStyle, palette: c.palette, over: c.over, runStart: c.runStart(j), runEnd: c.runEnd[j],
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
    for (const c of this.chunks) n += c.bytesHeld();
    return n;
  }
}

/** Text of units [a, b) as a string (code units copied as they are, lone surrogates included). */
export function unitsToString(u: Uint8Array | Uint16Array, a: number, b: number): string {
  if (b - a <= 2) return b - a === 1 ? String.fromCharCode(u[a]) : b - a === 2 ? String.fromCharCode(u[a], u[a + 1]) : '';
  if (u.BYTES_PER_ELEMENT === 1) return Buffer.from(u.buffer, u.byteOffset + a, b - a).toString('latin1');
  return Buffer.from(u.buffer, u.byteOffset + a * 2, (b - a) * 2).toString('utf16le');
}
