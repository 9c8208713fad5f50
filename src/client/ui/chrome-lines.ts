// The chrome as screen lines. Ink lays a whole screen out as a styled cell per column and row and turns it back into
// strings (~35 ms at 202x53, on every title, badge, focus or layout change, and keys typed meanwhile wait), so the
// chrome - pane frames, fills, the bar and the overlays (help, agent picker, chooser) - is composed here from the same
// parts PaneFrame and StatusBar draw (frame-parts.ts, bar-segments.ts; help-lines.ts, picker-lines.ts,
// chooser/lines.ts), at a cost in segments per row. Only panes under 2x2 still go through Ink: they are rare, so Ink
// is loaded (ink-door.ts) only when one first shows.
import cliBoxes from 'cli-boxes';
import { areaTop, type ChromeProps } from './chrome-props.js';
import { frameParts } from './frame-parts.js';
import { barSegments } from './bar-segments.js';
import { chooserLines } from '../chooser/index.js';
import { helpLines } from './help-lines.js';
import { pickerLines } from './picker-lines.js';
import { inkNow, type InkWaiter } from './ink-door.js';
import { cutCols, isNarrow, printable, width } from './text-width.js';
import { paint, role, type StyledRow, type TextStyle } from './theme-style.js';

export interface ChromeOut {
  /** `rows` lines, each at most `cols` wide (none while Ink loads for a pane under 2x2). */
  lines: string[];
  /** An overlay is drawn over the whole window area: pane rows are kept but not painted. */
  covers: boolean;
}

/**
 * The chrome. Where only Ink draws it (a pane under 2x2) and Ink is not in yet, `inkIn` is called once it is (draw
 * again) or could not be loaded; meanwhile there is no chrome (not the last one, drawn for another layout).
 */
export function chromeLines(p: ChromeProps, inkIn: InkWaiter): ChromeOut {
  const own = compose(p);
  if (own) return { lines: allRows(own.lines, p.rows), covers: own.covers };
  const ink = inkNow(inkIn);
  return { lines: ink ? allRows(ink(p), p.rows) : [], covers: false };
}

function allRows(lines: string[], rows: number): string[] {
  while (lines.length < rows) lines.push('');
  return lines;
}

/** The chrome composed by hand, or undefined where only Ink draws it (a pane under 2x2 with no overlay over it). */
export function composed(p: ChromeProps): string[] | undefined {
  return compose(p)?.lines;
}

/** composed(), and whether an overlay drawn by hand covers the whole window area (pane rows kept but not painted). */
function compose(p: ChromeProps): ChromeOut | undefined {
  const { view, theme, cols, rows } = p;
  const screen = new Screen(cols, rows);
  const top = areaTop(p.barAtTop);
  const over = overlayLines(p);
  // Every cell of the window area is the overlay's: the panes under it need not be drawn (nor be 2x2).
  if (over) over.forEach((row, i) => row.reduce((x, s) => screen.put(top + i, x, s.text, s.style), 0));
  else if (!panesAndFills(p, screen, top)) return undefined;
  const barRow = p.barAtTop ? 0 : rows - 1;
  screen.clearRow(barRow);
  let x = 0;
  for (const s of barSegments({ view, local: p.local, theme, cols, prefixKey: p.prefixKey })) x = screen.put(barRow, x, s.text, s.style);
  return { lines: screen.lines(), covers: over !== undefined };
}

/** The rows of an overlay drawn by hand over the whole window area, if one is up. */
function overlayLines(p: ChromeProps): StyledRow[] | undefined {
  const o = p.local.overlay;
  const { theme, cols } = p;
  const rows = p.rows - 1;
  if (o?.kind === 'help') return helpLines({ bindings: p.bindings, prefix: p.prefixKey, filter: o.filter, filtering: o.filtering, scroll: o.scroll, theme, cols, rows });
  if (o?.kind === 'agents') return pickerLines({ items: o.items, index: o.index, loading: o.loading, message: o.message, theme, cols, rows });
  if (o?.kind === 'chooser') return chooserLines(o, theme, cols, rows);
  return undefined;
}

/** Pane frames and the dotted space beyond the shared window size; false (nothing drawn) where a pane is under 2x2. */
function panesAndFills(p: ChromeProps, screen: Screen, top: number): boolean {
  const { view, theme, cols, rows } = p;
  if (view.window.panes.some((pane) => pane.rect.w < 2 || pane.rect.h < 2)) return false;
  for (const pane of view.window.panes) {
    const { rect } = pane;
    const f = frameParts(pane, theme, p.borders, view.window.zoomed);
    const box = cliBoxes[f.box];
    const edge: TextStyle = f.borderColor ? { color: f.borderColor } : {};
    const y0 = top + rect.y;
    const x1 = rect.x + rect.w - 1;
    screen.put(y0, rect.x, box.topLeft + box.top.repeat(rect.w - 2) + box.topRight, edge);
    for (let y = y0 + 1; y < y0 + rect.h - 1; y++) {
      screen.put(y, rect.x, box.left, edge);
      screen.put(y, x1, box.right, edge);
    }
    screen.put(y0 + rect.h - 1, rect.x, box.bottomLeft + box.bottom.repeat(rect.w - 2) + box.bottomRight, edge);
    let x = rect.x + 1;
    for (const s of f.left) x = screen.put(y0, x, s.text, s.style);
    x = x1 - f.right.reduce((n, s) => n + width(s.text), 0);
    for (const s of f.right) x = screen.put(y0, x, s.text, s.style);
  }
  // Space this client has beyond the shared window size (a smaller client is attached), as Chrome shows it.
  const dim = role(theme, 'pane.border');
  const fillRight = Math.max(0, cols - view.area.cols);
  for (let i = 0; i < Math.min(view.area.rows, rows - 1) && fillRight > 0; i++) screen.put(top + i, view.area.cols, '·'.repeat(fillRight), dim);
  const fillBottom = Math.max(0, rows - 1 - view.area.rows);
  for (let i = 0; i < fillBottom; i++) screen.put(top + view.area.rows + i, 0, '·'.repeat(cols), dim);
  return true;
}

interface Run {
  x: number;
  w: number;
  text: string;
  style: TextStyle;
}

/** Rows of styled runs; a run put over others replaces what it covers, as a later write does in Ink's output. */
class Screen {
  private readonly rows: Run[][];

  constructor(private readonly cols: number, rowCount: number) {
    this.rows = Array.from({ length: Math.max(0, rowCount) }, () => []);
  }

  clearRow(y: number): void {
    if (this.rows[y]) this.rows[y] = [];
  }

  /** Writes text at (y, x), clipped to the screen; returns the column after it. */
  put(y: number, x: number, raw: string, style: TextStyle): number {
    // Titles are cleaned by the server already; a control here would move the terminal's cursor.
    let text = printable(raw);
    let w = width(text);
    const end = x + w;
    const row = this.rows[y];
    if (!row || w === 0 || x >= this.cols || end <= 0) return end;
    if (x < 0) {
      text = dropCols(text, -x);
      w += x;
      x = 0;
    }
    if (x + w > this.cols) {
      text = takeCols(text, this.cols - x);
      w = this.cols - x;
    }
    if (w <= 0) return end;
    const kept: Run[] = [];
    for (const r of row) {
      if (r.x + r.w <= x || r.x >= x + w) {
        kept.push(r);
        continue;
      }
      if (r.x < x) kept.push({ ...r, w: x - r.x, text: takeCols(r.text, x - r.x) });
      if (r.x + r.w > x + w) kept.push({ ...r, x: x + w, w: r.x + r.w - x - w, text: dropCols(r.text, x + w - r.x) });
    }
    kept.push({ x, w, text, style });
    kept.sort((a, b) => a.x - b.x);
    this.rows[y] = kept;
    return end;
  }

  lines(): string[] {
    return this.rows.map((row) => {
      let out = '';
      let at = 0;
      for (const r of row) {
        if (r.x > at) out += ' '.repeat(r.x - at);
        out += paint(r.text, r.style);
        at = r.x + r.w;
      }
      return out;
    });
  }
}

/** The first n columns of text (a wide character cut in half becomes a space). */
function takeCols(text: string, n: number): string {
  const [t, w] = cutCols(text, n);
  return t + ' '.repeat(Math.max(0, n - w));
}

/** Text without its first n columns (a wide character cut in half becomes a space). */
function dropCols(text: string, n: number): string {
  if (isNarrow(text)) return text.slice(n);
  let w = 0;
  let i = 0;
  const chars = [...text];
  while (i < chars.length && w < n) w += width(chars[i++]);
  return ' '.repeat(w - n) + chars.slice(i).join('');
}
