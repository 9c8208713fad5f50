// One archived line seen through the part of xterm's IBufferLine that castellan's renderers use.
import type { IBufferCell } from '@xterm/headless';
import { ESCAPE, unitsToString, type StoredLine } from './store.js';
import { loadBlank, loadCell } from './xterm-cells.js';

/** What the renderers (sgr.ts, copy mode) read from a line: xterm's IBufferLine is one, an archived line another. */
export interface LineView {
  readonly length: number;
  readonly isWrapped: boolean;
  getCell(x: number, cell: IBufferCell): IBufferCell | undefined;
  translateToString(trimRight?: boolean, startColumn?: number, endColumn?: number): string;
}

/** Units as text, never-written cells (stored as 0) as spaces. */
function textOf(s: StoredLine, a: number, b: number): string {
  const t = unitsToString(s.text, a, b);
  return s.nulls ? t.replaceAll('\0', ' ') : t;
}

export class ArchivedLine implements LineView {
  readonly length: number;
  readonly isWrapped: boolean;
  /** Unit offset of each stored cell (complex lines only, built on first use). */
  private offsets: Uint32Array | undefined;
  private run = -1;
  private fg = 0;
  private bg = 0;

  constructor(private readonly s: StoredLine) {
    this.length = s.width;
    this.isWrapped = s.wrapped;
  }

  getCell(x: number, cell: IBufferCell): IBufferCell | undefined {
    const s = this.s;
    if (!(x >= 0 && x < this.length)) return undefined;
    if (x >= s.nCells) {
      loadBlank(cell);
      return cell;
    }
    this.style(x);
    if (!s.shapes) loadCell(cell, 1, s.text, s.textStart + x, 1, this.fg, this.bg);
    else {
      const shape = s.shapes[s.shapeStart + x];
      loadCell(cell, shape >> 8, s.text, s.textStart + this.offsetOf(x), shape & 0xff, this.fg, this.bg);
    }
    return cell;
  }

  /** As xterm's: each cell's text (never-written cells as spaces), wide characters once. */
  translateToString(trimRight = false, startColumn = 0, endColumn = this.length): string {
    const s = this.s;
    let end = Math.min(endColumn, this.length);
    if (trimRight) end = Math.min(end, this.trimmedLength());
    if (startColumn >= end) return '';
    const stored = Math.min(end, s.nCells);
    let out = '';
    // Where the stored text ended: past `stored` when it ended with a wide character that `end` cut in half.
    let pos = Math.max(startColumn, stored);
    if (startColumn < stored) {
      if (!s.shapes) out = textOf(s, s.textStart + startColumn, s.textStart + stored);
      else if (startColumn === 0 && stored === s.nCells && !s.stray) out = textOf(s, s.textStart, s.textEnd);
      else {
        // xterm advances by a cell's width (a wide character's right half is skipped), at least one cell.
        let x = startColumn;
        while (x < stored) {
          const shape = s.shapes[s.shapeStart + x];
          const n = shape & 0xff;
          const a = s.textStart + this.offsetOf(x);
          out += n === 0 ? ' ' : textOf(s, a, a + n);
          x += shape >> 8 || 1;
        }
        pos = x;
      }
    }
    return end > pos ? out + ' '.repeat(end - pos) : out;
  }

  /** As xterm's getTrimmedLength: up to the last cell with text, plus that cell's width (0 for a zero-width one). */
  private trimmedLength(): number {
    const s = this.s;
    if (!s.shapes) {
      let i = s.nCells;
      while (i > 0 && s.text[s.textStart + i - 1] === 0) i--;
      return i;
    }
    let end = s.textEnd;
    for (let x = s.nCells - 1; x >= 0; x--) {
      const shape = s.shapes[s.shapeStart + x];
      const n = shape & 0xff;
      end -= n;
      if (n > 1 || (n === 1 && s.text[end] !== 0)) return x + (shape >> 8);
    }
    return 0;
  }

  /** Loads the style of cell x into fg/bg; cells are mostly read left to right, so the last run is the first guess. */
  private style(x: number): void {
    const s = this.s;
    const at = s.runAt;
    let r = this.run;
    if (r < s.runStart || at[r] > x) r = s.runStart - 1;
    while (r + 1 < s.runEnd && at[r + 1] <= x) r++;
    if (r < s.runStart) {
      this.run = -1;
      this.fg = 0;
      this.bg = 0;
    } else if (r !== this.run) {
      this.run = r;
      let i = s.runStyle[r];
      if (i === ESCAPE && s.over) i = overflowed(s.over, r);
      const k = i * 2;
      this.fg = s.palette[k];
      this.bg = s.palette[k + 1];
    }
  }

  private offsetOf(x: number): number {
    if (!this.offsets) {
      const s = this.s;
      const o = new Uint32Array(s.nCells + 1);
      for (let i = 0; i < s.nCells; i++) o[i + 1] = o[i] + (s.shapes![s.shapeStart + i] & 0xff);
      this.offsets = o;
    }
    return this.offsets[x];
  }
}

/** The palette index of run r from a chunk's overflow list ([run, index] pairs sorted by run). */
function overflowed(over: Uint32Array, r: number): number {
  let lo = 0, hi = over.length / 2 - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const at = over[mid * 2];
    if (at === r) return over[mid * 2 + 1];
    if (at < r) lo = mid + 1;
    else hi = mid - 1;
  }
  return 0;
}
