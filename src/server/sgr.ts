// Turns xterm buffer lines into SGR-styled row strings: the hot path from a pane's screen to the painter.
//
// Contract of a row string (what the client painter relies on):
// - it assumes the terminal is in the reset state (the painter writes `\x1b[0m` first) and, if it
//   emitted any style, ends with `\x1b[0m`, so rows can be painted in any order;
// - trailing cells that are blank with fully default attributes are dropped (the painter clears the
//   rest of the pane row with ECH); blanks with any attribute, e.g. a coloured background, are kept;
// - a wide character is emitted once (its width-0 right half is skipped), so the row covers as many
//   columns as the screen's cells (given the user's terminal agrees on widths: Unicode 11 here);
// - it never contains a C0/C1 control character, so it is safe to write to the user's terminal.
//
// Only the public IBufferCell API is used: xterm's private cell arrays are faster (~2x) but change
// between releases, and this path is already well under a millisecond per dense frame.
import type { Terminal as XTerm, IBufferCell } from '@xterm/headless';
import type { LineView } from '../history/index.js';
import { hasControls, stripControls as stripAll } from '../core/text.js';

// Attribute flags, packed into one number so a style change is one integer compare.
const BOLD = 1;
const DIM = 2;
const ITALIC = 4;
const UNDERLINE = 8;
const BLINK = 16;
const INVERSE = 32;
const INVISIBLE = 64;
const STRIKE = 128;
const OVERLINE = 256;

// SGR parameter that sets each flag, in flag-bit order.
const FLAG_ON = ['1', '2', '3', '4', '5', '7', '8', '9', '53'];
// Parameter strings (each with a leading ';') precomputed for every flag set and palette colour:
// building them per style change was a third of the cost of a dense frame.
const FLAG_PARAMS: readonly string[] = Array.from({ length: 1 << FLAG_ON.length }, (_, flags) =>
  FLAG_ON.map((p, bit) => (flags & (1 << bit) ? ';' + p : '')).join(''));
const paletteParams = (base: number): readonly string[] => Array.from({ length: 256 }, (_, n) =>
  // 31, 91, 38;5;n: xterm's public API does not tell 31 from 38;5;1 apart, and terminals draw them alike.
  ';' + (n < 8 ? String(base + n) : n < 16 ? String(base + 52 + n) : `${base + 8};5;${n}`));
const FG_PALETTE = paletteParams(30);
const BG_PALETTE = paletteParams(40);

const RESET = '\x1b[0m';
const REPLACEMENT = '\uFFFD';
// C0, DEL and C1: a terminal would act on them, so they must never reach a row string.

function flagsOf(c: IBufferCell): number {
  let f = 0;
  if (c.isBold()) f |= BOLD;
  if (c.isDim()) f |= DIM;
  if (c.isItalic()) f |= ITALIC;
  if (c.isUnderline()) f |= UNDERLINE;
  if (c.isBlink()) f |= BLINK;
  if (c.isInverse()) f |= INVERSE;
  if (c.isInvisible()) f |= INVISIBLE;
  if (c.isStrikethrough()) f |= STRIKE;
  if (c.isOverline()) f |= OVERLINE;
  return f;
}

function fgParam(c: IBufferCell): string {
  if (c.isFgDefault()) return ';39';
  const n = c.getFgColor();
  return c.isFgRGB() ? `;38;2;${(n >>> 16) & 255};${(n >>> 8) & 255};${n & 255}` : FG_PALETTE[n & 255];
}

function bgParam(c: IBufferCell): string {
  if (c.isBgDefault()) return ';49';
  const n = c.getBgColor();
  return c.isBgRGB() ? `;48;2;${(n >>> 16) & 255};${(n >>> 8) & 255};${n & 255}` : BG_PALETTE[n & 255];
}

/** Replaces control characters in text that did not come from cells (titles, plain dumps). */
export function stripControls(text: string, replacement = REPLACEMENT): string {
  return stripAll(text, replacement);
}

// One cell's text, made safe. Single code units are the overwhelmingly common case, so they get a
// char-code check instead of a regex.
function safeChars(chars: string): string {
  if (chars.length === 1) {
    const code = chars.charCodeAt(0);
    return code < 0x20 || (code >= 0x7f && code <= 0x9f) ? REPLACEMENT : chars;
  }
  return hasControls(chars) ? stripControls(chars) : chars;
}

/**
 * Serializes one line (xterm's, or an archived one: src/history) to an SGR string (see the contract at the top of this file).
 * `cell` is a scratch cell reused across calls (`buffer.getNullCell()`), which keeps the loop
 * allocation-free apart from the output string.
 */
export function serializeRow(line: LineView, cols: number, cell: IBufferCell): string {
  const end = Math.min(cols, line.length);
  let out = '';
  // Current emitted style. Colour identity is (mode, colour); modes are opaque numbers that the
  // API documents as comparable.
  let flags = 0;
  let fgMode = 0, fg = 0, bgMode = 0, bg = 0;
  let styled = false; // current style is not the default
  let pendingBlanks = 0; // default-attribute blanks not yet emitted: dropped if they end the row

  for (let x = 0; x < end; x++) {
    line.getCell(x, cell);
    // The right half of a wide character: its glyph was emitted with the left half.
    if (cell.getWidth() === 0) continue;
    let chars = cell.getChars();

    // Cells whose only non-default attributes are invisible to this API (underline colour, a
    // hyperlink id) count as plain, so they do not cost a useless `\x1b[0m`.
    let nf = 0, nfm = 0, nfc = 0, nbm = 0, nbc = 0;
    let plain = cell.isAttributeDefault();
    if (!plain) {
      nf = flagsOf(cell);
      nfm = cell.getFgColorMode(); nfc = cell.getFgColor();
      nbm = cell.getBgColorMode(); nbc = cell.getBgColor();
      plain = nf === 0 && cell.isFgDefault() && cell.isBgDefault();
    }

    if (plain) {
      if (chars === '' || chars === ' ') { pendingBlanks++; continue; }
      if (styled) { out += RESET; styled = false; }
    } else {
      if (!styled || nf !== flags || nfm !== fgMode || nfc !== fg || nbm !== bgMode || nbc !== bg) {
        // Blanks held back are default-styled, so they must be written before the new style.
        if (pendingBlanks > 0) {
          if (styled) { out += RESET; styled = false; }
          out += ' '.repeat(pendingBlanks);
          pendingBlanks = 0;
        }
        let p: string;
        if (!styled || (flags & ~nf) !== 0) {
          // From the default state, or a flag was turned off: set everything, after a reset in the
          // second case. One `0` is shorter than the per-flag off codes (22, 23, ...) and cannot
          // leave a stale attribute behind.
          p = (styled ? ';0' : '') + FLAG_PARAMS[nf];
          if (!cell.isFgDefault()) p += fgParam(cell);
          if (!cell.isBgDefault()) p += bgParam(cell);
        } else {
          // Only additions: emit just what changed (typical of syntax highlighting: colour swaps).
          p = FLAG_PARAMS[nf & ~flags];
          if (nfm !== fgMode || nfc !== fg) p += fgParam(cell);
          if (nbm !== bgMode || nbc !== bg) p += bgParam(cell);
        }
        out += '\x1b[' + p.slice(1) + 'm';
        styled = true;
        flags = nf; fgMode = nfm; fg = nfc; bgMode = nbm; bg = nbc;
      }
      if (chars === '') chars = ' ';
    }

    if (pendingBlanks > 0) { out += ' '.repeat(pendingBlanks); pendingBlanks = 0; }
    out += safeChars(chars);
  }
  return styled ? out + RESET : out;
}

/** SGR parameters (without the leading reset) for one cell's style, e.g. "1;38;5;196"; '' for default. */
export function cellStyle(cell: IBufferCell): string {
  if (cell.isAttributeDefault()) return '';
  let p = FLAG_PARAMS[flagsOf(cell)];
  if (!cell.isFgDefault()) p += fgParam(cell);
  if (!cell.isBgDefault()) p += bgParam(cell);
  return p.slice(1);
}

/** Makes a cell's text safe to write to the user's terminal (exported for the copy-mode renderer). */
export const safeCellChars = (chars: string): string => safeChars(chars);

/**
 * Serializes `count` lines of the active buffer starting at absolute line `startLine`
 * (use `buffer.active.viewportY` for the visible screen). Missing lines become ''.
 */
export function serializeRows(term: XTerm, startLine: number, count: number): string[] {
  const buffer = term.buffer.active;
  const cell = buffer.getNullCell();
  const cols = term.cols;
  const rows = new Array<string>(count);
  for (let i = 0; i < count; i++) {
    const line = buffer.getLine(startLine + i);
    rows[i] = line ? serializeRow(line, cols, cell) : '';
  }
  return rows;
}

/** Plain text of one line, trailing spaces trimmed and control characters replaced. */
export function plainRow(line: LineView | undefined): string {
  if (!line) return '';
  // trimRight only drops never-written cells; explicitly written spaces need trimming too.
  const text = line.translateToString(true);
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 32) end--;
  const trimmed = end === text.length ? text : text.slice(0, end);
  return hasControls(trimmed) ? stripControls(trimmed) : trimmed;
}
