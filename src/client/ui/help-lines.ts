// `prefix ?` drawn by hand: every binding from the keymap table, grouped, searchable, scrollable, as styled rows that
// chrome-lines.ts puts over the window area: what Ink's HelpOverlay drew, cell for cell from 17 columns and 5 rows up
// (recorded before it was removed: test/client/help-lines.expected.json). Through Ink the first help cost the client
// 14.9 MB of RSS for good and 147 ms, and each key typed in its filter 41 ms from key to screen; drawn here, 2.3 MB,
// 15 ms and 2.2 ms a key, ~1 ms of it drawing (bench/overlay-probe.ts, 8 runs, load 0.6).
import type { Theme } from '../../config/themes.js';
import type { Binding } from '../../input/keymap.js';
import { helpRows } from './help-rows.js';
import { pad, printable } from './text-width.js';
import { role, type StyledRow } from './theme-style.js';

export interface HelpView {
  bindings: Binding[];
  prefix: string;
  filter: string;
  filtering: boolean;
  scroll: number;
  theme: Theme;
  cols: number;
  /** Rows of the window area (the screen less the bar). */
  rows: number;
}

/** Width of the key column, its indent included. */
const KEY_W = 17;

/** The help's rows from the top of the window area: a title, a blank, the list from `scroll`, a footer. */
export function helpLines({ bindings, prefix, filter, filtering, scroll, theme, cols, rows }: HelpView): StyledRow[] {
  // A filter pasted in, or a binding from the user's config, may carry controls: shown as spaces, measured as such.
  const list = helpRows(bindings, prefix, filter).map((r) => ({ group: r.group && printable(r.group), key: r.key && printable(r.key), text: r.text && printable(r.text) }));
  filter = printable(filter);
  const bodyH = Math.max(1, rows - 3);
  const start = Math.max(0, Math.min(scroll, Math.max(0, list.length - bodyH)));
  const visible = list.slice(start, start + bodyH);
  const base = role(theme, 'overlay');
  const title = role(theme, 'overlay.title');
  const header = filter || filtering
    ? ` castellan keys · filter: ${filter}${filtering ? '█' : ''}   (Enter keeps it, Esc clears)`
    : ' castellan keys — / search · ↑↓ PgUp PgDn g G scroll · q or Esc close';
  const out: StyledRow[] = [[{ text: pad(header, cols), style: title }], [{ text: ' '.repeat(cols), style: base }]];
  // Under 17 columns Ink wrapped the key column onto a second line and pushed every row below down; here it is cut.
  const keyW = Math.min(KEY_W, cols);
  for (const r of visible) {
    out.push(r.group
      ? [{ text: pad(` ${r.group}`, cols), style: title }]
      : [{ text: pad(`   ${r.key}`, keyW), style: role(theme, 'overlay.key') }, { text: pad(r.text ?? '', cols - keyW), style: base }]);
  }
  for (let i = visible.length; i < bodyH; i++) out.push([{ text: ' '.repeat(cols), style: base }]);
  out.push([{ text: pad(` ${list.filter((r) => r.key).length} bindings · rows ${start + 1}-${start + visible.length} of ${list.length}`, cols), style: role(theme, 'overlay.dim') }]);
  return out;
}
