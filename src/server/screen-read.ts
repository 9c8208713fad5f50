// Reading a screen's history + screen as text: what `pane read` and restore snapshots get.
import { ArchivedLine, type HistoryView, type LineView } from '../history/index.js';
import type { IBufferCell } from '@xterm/headless';
import { plainRow, serializeRow } from './sgr.js';

export interface ReadLinesOptions {
  /** How many lines, counted back from the last non-blank screen row. Default: one screenful. */
  lines?: number;
  /** SGR-styled rows (as viewportRows) instead of plain text. */
  ansi?: boolean;
  /** 'all' (default) reaches into scrollback; 'screen' stops at the top of the visible screen. */
  source?: 'screen' | 'all';
}

// An archived line keeps the width it had (history is not reflowed): read whole, never cut to today's width.
const text = (line: LineView | undefined, ansi: boolean, cols: number, cell: IBufferCell): string =>
  !ansi ? plainRow(line) : line ? serializeRow(line, line instanceof ArchivedLine ? line.length : cols, cell) : '';

/** Index (in the view) of the last non-blank screen row, or screenTop - 1. */
function lastRow(v: HistoryView): number {
  let last = v.length - 1;
  while (last >= v.screenTop && plainRow(v.at(last)) === '') last--;
  return last;
}

/** The last lines of scrollback + screen (history first); trailing blank screen rows dropped. */
export function readLines(v: HistoryView, size: { cols: number; rows: number }, cell: IBufferCell, opts: ReadLinesOptions): string[] {
  const last = lastRow(v);
  const floor = opts.source === 'screen' ? v.screenTop : 0;
  const want = opts.lines === undefined ? size.rows : Math.max(0, Math.floor(opts.lines));
  const out: string[] = [];
  for (let i = Math.max(floor, last + 1 - want); i <= last; i++) out.push(text(v.at(i), !!opts.ansi, size.cols, cell));
  return out;
}

/** How many lines scrollback + screen hold (up to the last non-blank screen row). */
export function lineCount(v: HistoryView): number {
  return lastRow(v) + 1;
}

/** Lines [from, to) of scrollback + screen. */
export function readRange(v: HistoryView, cols: number, cell: IBufferCell, from: number, to: number, ansi: boolean): string[] {
  const out: string[] = [];
  for (let i = Math.max(0, from); i < Math.min(to, v.length); i++) out.push(text(v.at(i), ansi, cols, cell));
  return out;
}
