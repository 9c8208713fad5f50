// Renders a pane in copy mode: history rows at the copy view, with selection and search matches marked.
import type { IBufferCell } from '@xterm/headless';
import type { LineView } from '../history/index.js';
import type { CopyBuffer, CopyState } from './copy-mode.js';
import { copyIndicator, selectionRange, visibleMatches } from './copy-mode.js';
import type { Screen } from './screen.js';
import { cellStyle, plainRow, safeCellChars, serializeRow } from './sgr.js';

let stringWidth: ((t: string) => number) | undefined;
let loading: Promise<void> | undefined;
/**
 * string-width once a pane enters copy mode, not at server start: loading it builds an Intl.Segmenter, whose ICU
 * data (~0.7 MB of the node binary's pages) and its emoji regex the server would keep for nothing otherwise.
 */
export function loadCopyWidth(): Promise<void> {
  return (loading ??= import('string-width').then((m) => void (stringWidth = m.default)));
}

// The indicator is ASCII when copy mode opens ([0/123]); text typed into its prompt comes after the load.
const width = (t: string) => (/^[\x20-\x7e]*$/.test(t) ? t.length : stringWidth ? stringWidth(t) : [...t].length);
function fitWidth(t: string, n: number): string {
  let out = '';
  for (const ch of t) {
    if (width(out + ch) > n) break;
    out += ch;
  }
  return out;
}

interface Mark {
  from: number;
  to: number;
  sgr: string;
}

export interface CopyStyles {
  selection: string;
  match: string;
  current: string;
  indicator: string;
}

/** A CopyBuffer over a screen's history + screen, in absolute line numbers. */
export function copyBufferOf(screen: Screen): CopyBuffer {
  const v = screen.lines();
  return {
    first: v.first,
    length: v.length,
    rows: screen.rows,
    cols: screen.cols,
    line: (abs) => plainRow(v.line(abs)),
    wrapped: (abs) => !!v.line(abs)?.isWrapped,
  };
}

/** One row with marked cell ranges drawn in their own style (characters kept, colours replaced). */
function markedRow(line: LineView, cols: number, cell: IBufferCell, marks: Mark[]): string {
  let out = '';
  let cur: string | undefined;
  for (let x = 0; x < Math.min(cols, line.length); x++) {
    line.getCell(x, cell);
    if (cell.getWidth() === 0) continue;
    const m = marks.find((k) => x >= k.from && x < k.to);
    const style = m ? m.sgr : cellStyle(cell);
    if (style !== cur) {
      out += `\x1b[0${style ? ';' + style : ''}m`;
      cur = style;
    }
    out += safeCellChars(cell.getChars() || ' ');
  }
  return out + '\x1b[0m';
}

/** Converts a column counted in characters (as copy mode does) to a cell column (wide chars take two). */
function cellCol(line: LineView, col: number, cell: IBufferCell, cols: number): number {
  let chars = 0;
  for (let x = 0; x < cols; x++) {
    line.getCell(x, cell);
    if (cell.getWidth() === 0) continue;
    if (chars === col) return x;
    chars++;
  }
  return cols;
}

/** Rows (SGR strings) of the copy view, the cursor position on screen, and the corner indicator. */
export function renderCopy(screen: Screen, s: CopyState, st: CopyStyles): { rows: string[]; cursor: { x: number; y: number } } {
  const buf = copyBufferOf(screen);
  const v = screen.lines();
  const cell = screen.scratchCell();
  const cols = screen.cols;
  const sel = selectionRange(s);
  const matches = visibleMatches(s, buf);
  const ind = s.prompt ? `${s.prompt.backward ? '?' : '/'}${s.prompt.text}█` : s.message ?? copyIndicator(s, buf);
  const indicator = fitWidth(ind, cols);
  const rows: string[] = [];
  for (let y = 0; y < screen.rows; y++) {
    const abs = s.top + y;
    const line = v.line(abs);
    if (!line) {
      rows.push(y === 0 ? ' '.repeat(cols - width(indicator)) + `\x1b[0;${st.indicator}m${indicator}\x1b[0m` : '');
      continue;
    }
    const marks: Mark[] = [];
    if (sel && abs >= sel.from.line && abs <= sel.to.line) {
      const from = sel.mode === 'line' || abs > sel.from.line ? 0 : cellCol(line, sel.from.col, cell, cols);
      const to = sel.mode === 'line' || abs < sel.to.line ? cols : cellCol(line, sel.to.col, cell, cols) + 1;
      marks.push({ from, to, sgr: st.selection });
    }
    for (const m of matches) {
      if (m.line !== abs) continue;
      const from = cellCol(line, m.col, cell, cols);
      const current = m.line === s.cursor.line && m.col === s.cursor.col;
      marks.push({ from, to: cellCol(line, m.col + m.len, cell, cols), sgr: current ? st.current : st.match });
    }
    if (y === 0) {
      // The position indicator takes the top-right corner, as in tmux.
      const keep = cols - width(indicator);
      rows.push(`${markedRow(line, keep, cell, marks)}\x1b[0;${st.indicator}m${indicator}\x1b[0m`);
    } else rows.push(marks.length ? markedRow(line, cols, cell, marks) : serializeRow(line, cols, cell));
  }
  const cy = s.cursor.line - s.top;
  const cursorLine = v.line(s.cursor.line);
  return { rows, cursor: { x: cursorLine ? cellCol(cursorLine, s.cursor.col, cell, cols) : 0, y: cy } };
}
