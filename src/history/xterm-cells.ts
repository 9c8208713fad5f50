// The one file that knows how @xterm/headless lays out a line's cells in memory: read to archive a line, written back to render it.
//
// Why private fields: archiving reads every line that scrolls off a pane (~120 000 lines per 10 MB of output);
// the public getCell() API costs ~13 µs a line, which would halve parsing throughput, while walking the
// line's Uint32Array costs well under 1 µs. Rendering loads archived cells back into xterm's own CellData, so
// sgr.ts serialises archived and live lines with the same code (and the same output). probe() checks the
// layout once; if it ever changes, screens keep all history in xterm instead (slower, bigger, still correct).
import type { IBufferCell, IBufferLine, Terminal } from '@xterm/headless';
import { MAX_CELLS, unitsToString, type HistoryStore, type LineMeta } from './store.js';

// Layout of a cell: 3 uint32 (content, fg, bg). content = width(2 bits) << 22 | combined(1) << 21 | codepoint(21).
const CELL = 3;
const CODEPOINT = 0x1fffff;
const COMBINED = 0x200000;
const WIDTH_SHIFT = 22;
const NULL_CELL = 1 << WIDTH_SHIFT; // width 1, no content
const SPACE_CELL = NULL_CELL | 32;
// fg: flags in bits 26-31, colour mode in 24-25; bg: italic/dim/overline/extended/protected in 26-30.
const FG_STYLE = 0xff000000; // any fg flag or a non-default fg colour
const BG_KEEP = 0x5f000000; // non-default bg colour, italic, dim, overline, or extended attributes
const UNDERLINE = 0x10000000;
const HAS_EXTENDED = 0x10000000;
/** A cell's text is capped: a program piling combining marks on one cell must not grow history without bound. */
export const MAX_CELL_UNITS = 64;

interface RawLine {
  _data: Uint32Array;
  _combined: Record<number, string>;
  _extendedAttrs: Record<number, { underlineStyle?: number } | undefined>;
  length: number;
  isWrapped: boolean;
}

interface RawCell { content: number; fg: number; bg: number; combinedData: string }

const rawOf = (line: IBufferLine): RawLine => (line as unknown as { _line: RawLine })._line;

/** Does this xterm lay lines out as this file expects? Checked on a screen's blank first line. */
export function probe(term: Terminal): boolean {
  try {
    const line = term.buffer.normal.getLine(0);
    if (!line) return false;
    const raw = rawOf(line);
    const cell = term.buffer.normal.getNullCell() as unknown as RawCell;
    const viaLines = rawLineAt(term.buffer.normal, 0) as RawLine | undefined;
    return viaLines === raw && raw._data instanceof Uint32Array && raw._data.length >= term.cols * CELL && raw._data[0] === NULL_CELL &&
      typeof raw._combined === 'object' && typeof raw._extendedAttrs === 'object' &&
      typeof cell.content === 'number' && typeof cell.fg === 'number' && typeof cell.bg === 'number' && 'combinedData' in cell;
  } catch {
    return false;
  }
}

/** Grows a scratch array to hold `need` items. */
function room(a: Uint16Array, need: number): Uint16Array {
  return need <= a.length ? a : new Uint16Array(need * 2);
}

let shapeScratch: Uint16Array = new Uint16Array(256);
const meta: LineMeta = { nUnits: 0, nRuns: 0, nCells: 0, shapes: undefined, width: 0, wrapped: false, nulls: false, stray: false, latin1: true };

/** How many cells of a line to keep: trailing blanks of default style go (every renderer drops them too). */
function keptCells(raw: RawLine): number {
  const d = raw._data;
  let end = raw.length;
  for (; end > 0; end--) {
    const i = (end - 1) * CELL;
    const c = d[i];
    // Blank: width 1 and no text or a space; default style (an extended attribute counts as style here).
    if ((c !== NULL_CELL && c !== SPACE_CELL) || (d[i + 1] & FG_STYLE) !== 0 || (d[i + 2] & BG_KEEP) !== 0) break;
  }
  if (end > 0 && end < raw.length && d[(end - 1) * CELL] >>> WIDTH_SHIFT === 0) {
    // xterm's trimmed text ends before a zero-width last character unless written blanks follow it: keep them.
    for (let x = raw.length - 1; x >= end; x--) if (d[x * CELL] & CODEPOINT) return x + 1;
  }
  return end;
}

/** A line's cells as xterm laid them out, not encoded yet: a copy in the raw tier, or xterm's own line. */
export interface RawCells {
  /** Cell words; this line's start at `base`. */
  d: Uint32Array;
  base: number;
  /** Cells kept (trailing default blanks dropped). */
  end: number;
  width: number;
  wrapped: boolean;
  /** xterm's per-cell side tables (only cells flagged to use them are looked up). */
  combined: Record<number, string> | undefined;
  ext: Record<number, { underlineStyle?: number } | undefined> | undefined;
}

/**
 * A copied line's side table, copied only when a cell uses it (xterm reuses its line objects): combined text only, since
 * copyRaw folds extended attributes into the copied cells (a copy's `ext` is always undefined).
 */
export type LineSide = Pick<RawCells, 'combined'>;

/** Where copyRaw puts a line: room for its words in `d`, then what else it needs to encode the line later. */
export interface RawSink {
  readonly d: Uint32Array;
  /** Offset in `d` for `words` words, or -1 without room. */
  place(words: number): number;
  commit(cells: number, width: number, wrapped: boolean, side: LineSide | undefined): void;
}

/** Line y of a buffer as xterm's own line object, without the public API's per-call wrapper (archive runs per line). */
export function rawLineAt(b: Terminal['buffer']['normal'], y: number): unknown {
  return (b as unknown as { _buffer: { lines: { get(i: number): unknown } } })._buffer.lines.get(y);
}

function hasEntries(o: object): boolean {
  for (const _ in o) return true;
  return false;
}

/** A cell's style with its extended attributes folded in: of them only the underline style shows (as plain underline). */
function foldExtended(fg: number, ext: { underlineStyle?: number } | undefined): number {
  return ext?.underlineStyle ? (fg | UNDERLINE) >>> 0 : fg;
}

/**
 * Copies one xterm line (from rawLineAt), its cells' words: what a flood pays per line. Encoding into the compact
 * store happens later, off the output path, and only for lines still kept then (see pending.ts). False when the sink
 * has no room.
 *
 * xterm keeps a line's combined text and extended attributes in side tables, which it reuses with the line. Extended
 * attributes are folded into the copy here (what encodeLine would make of them), so only combined text is copied
 * aside. Copying the extended table instead cost more than the rest of the copy: the bench's text underlines one line
 * in ten, ~33 cells a line, and spreading those tables took ~0.2 s of CPU per 20 MB (16,000 lines).
 */
export function copyRaw(rawLine: unknown, sink: RawSink): boolean {
  const raw = rawLine as RawLine;
  const end = keptCells(raw);
  const words = end * CELL;
  const at = sink.place(words);
  if (at < 0) return false;
  const src = raw._data;
  const d = sink.d;
  d.set(src.subarray(0, words), at);
  // The tables matter only for cells flagged to use them (recycled lines keep stale entries); a flagged cell always
  // has its entry, so a line whose tables are empty has none to look for.
  let combined = 0;
  if (hasEntries(raw._combined) || hasEntries(raw._extendedAttrs)) for (let i = 0; i < words; i += CELL) {
    combined |= src[i] & COMBINED;
    if (src[i + 2] & HAS_EXTENDED) {
      d[at + i + 1] = foldExtended(src[i + 1], raw._extendedAttrs[i / CELL]);
      d[at + i + 2] = (src[i + 2] & ~HAS_EXTENDED) >>> 0;
    }
  }
  sink.commit(end, raw.length, raw.isWrapped, combined ? { combined: { ...raw._combined } } : undefined);
  return true;
}

/** xterm's own line (from rawLineAt) as RawCells, to encode at once without a copy. */
export function cellsOf(rawLine: unknown): RawCells {
  const raw = rawLine as RawLine;
  return { d: raw._data, base: 0, end: keptCells(raw), width: raw.length, wrapped: raw.isWrapped, combined: raw._combined, ext: raw._extendedAttrs };
}

/**
 * Encodes one copied line into the store. Runs once per kept line, so the loop writes straight into the
 * store's arrays and does one comparison per cell for the style.
 */
export function encodeLine(line: RawCells, store: HistoryStore): void {
  const d = line.d;
  const base = line.base;
  const end = Math.min(line.end, MAX_CELLS);
  // Room for the worst case up front (two units and a run per cell); only combining sequences need more.
  const sink = store.open(end * 2, end + 1);
  let text = sink.text;
  const runAt = sink.runAt;
  const runStyle = sink.runStyle;
  const t0 = sink.t0;
  let r = sink.r0;
  const shapes = (shapeScratch = room(shapeScratch, end));
  let u = t0;
  let complex = false, nulls = false, stray = false;
  /** Every unit OR-ed: past 0xff, the line's text is not Latin-1. */
  let any = 0;
  let prevWidth = 1, curFg = 0, curBg = 0;
  for (let x = 0; x < end; x++) {
    const i = base + x * CELL;
    const c = d[i];
    let fg = d[i + 1];
    let bg = d[i + 2];
    if (bg & HAS_EXTENDED) {
      // xterm's own line (a copy has them folded in already, copyRaw).
      fg = foldExtended(fg, line.ext?.[x]);
      bg = (bg & ~HAS_EXTENDED) >>> 0;
    }
    if (fg !== curFg || bg !== curBg) {
      runAt[r] = x;
      runStyle[r] = sink.style(fg, bg);
      r++;
      curFg = fg;
      curBg = bg;
    }
    const w = c >>> WIDTH_SHIFT;
    if (w !== 1) {
      complex = true;
      // The right half of a wide character has no text (a zero-width character xterm put in a cell of
      // its own keeps its text, as a "stray" cell).
      if (w === 0) {
        if (prevWidth !== 2) stray = true;
        if ((c & (CODEPOINT | COMBINED)) === 0) {
          shapes[x] = 0;
          prevWidth = 0;
          continue;
        }
      }
    }
    prevWidth = w;
    let n = 1;
    if (c & COMBINED) {
      const str = (line.combined?.[x] ?? ' ').slice(0, MAX_CELL_UNITS);
      n = str.length;
      text = sink.more(u - t0 + n + (end - x) * 2);
      for (let k = 0; k < n; k++) any |= text[u + k] = str.charCodeAt(k);
      if (n !== 1) complex = true;
    } else {
      const cp = c & CODEPOINT;
      if (cp < 0x10000) {
        text[u] = cp;
        any |= cp;
        if (cp === 0) nulls = true; // a never-written cell (unit 0), drawn as a blank
      } else {
        n = 2;
        complex = true;
        text[u] = 0xd800 + ((cp - 0x10000) >> 10);
        text[u + 1] = 0xdc00 + ((cp - 0x10000) & 0x3ff);
        any = 0xffff;
      }
    }
    u += n;
    shapes[x] = (w << 8) | n;
  }
  meta.nUnits = u - t0;
  meta.nRuns = r - sink.r0;
  meta.nCells = end;
  meta.shapes = complex ? shapes : undefined;
  meta.width = line.width;
  meta.wrapped = line.wrapped;
  meta.nulls = nulls;
  meta.stray = stray;
  meta.latin1 = any <= 0xff;
  store.commit(meta);
}

/** Fills xterm's cell object (from buffer.getNullCell()) with an archived cell, as BufferLine.loadCell would. */
export function loadCell(cell: IBufferCell, width: number, units: Uint8Array | Uint16Array, a: number, n: number, fg: number, bg: number): void {
  const raw = cell as unknown as RawCell;
  raw.fg = fg;
  raw.bg = bg;
  if (n === 1) raw.content = (width << WIDTH_SHIFT) | units[a];
  else if (n === 0) raw.content = width === 0 ? 0 : NULL_CELL;
  else if (n === 2 && units[a] >= 0xd800 && units[a] < 0xdc00 && units[a + 1] >= 0xdc00 && units[a + 1] < 0xe000) {
    raw.content = (width << WIDTH_SHIFT) | (0x10000 + ((units[a] - 0xd800) << 10) + (units[a + 1] - 0xdc00));
  } else {
    raw.content = (width << WIDTH_SHIFT) | COMBINED;
    raw.combinedData = unitsToString(units, a, a + n);
  }
}

/** An empty, default-styled cell (past the stored end of an archived line). */
export function loadBlank(cell: IBufferCell): void {
  const raw = cell as unknown as RawCell;
  raw.content = NULL_CELL;
  raw.fg = 0;
  raw.bg = 0;
}
