// `prefix a` drawn by hand: the agent definitions to launch into a new pane (name, source, description; ↑↓ choose,
// Enter starts, Esc closes) as styled rows that chrome-lines.ts puts over the window area: what Ink's AgentPicker drew,
// cell for cell from 5 rows up (recorded before it was removed: test/client/picker-lines.expected.json), without
// loading Ink (~15 MB of client RSS and ~140 ms at the first overlay, bench/overlay-probe.ts).
import type { Theme } from '../../config/themes.js';
import type { PickerAgent } from '../ui-state.js';
import { pad, printable } from './text-width.js';
import { role, type StyledRow } from './theme-style.js';

export interface PickerView {
  items: PickerAgent[];
  index: number;
  loading: boolean;
  message?: string;
  theme: Theme;
  cols: number;
  /** Rows of the window area (the screen less the bar). */
  rows: number;
}

/** The picker's rows from the top of the window area: a title, a blank, the list around the selection, a footer. */
export function pickerLines({ items: raw, index, loading, message, theme, cols, rows }: PickerView): StyledRow[] {
  // Names, descriptions and commands come from agent definitions, some of them a repo's files: no controls get drawn.
  const items = raw.map((a) => ({ ...a, name: printable(a.name), description: printable(a.description), command: printable(a.command), reason: a.reason && printable(a.reason) }));
  const base = role(theme, 'overlay');
  const dim = role(theme, 'overlay.dim');
  const bodyH = Math.max(1, rows - 3);
  // Scrolls only as far as needed to keep the selection in view.
  const first = Math.max(0, index - bodyH + 1);
  const visible = items.slice(first, first + bodyH);
  // (Measured in UTF-16 units, as the Ink component did: a wide name gets a narrower column, not a different layout.)
  const nameW = Math.min(24, Math.max(6, ...items.map((a) => a.name.length)) + 2);
  const selected = items[index];
  const footer = message !== undefined ? printable(message) : selected && !selected.startable ? `cannot start: ${selected.reason ?? 'not trusted'}` : selected ? `runs: ${selected.command}` : '';
  const out: StyledRow[] = [
    [{ text: pad(' launch an agent in a new pane — ↑↓ choose · Enter start · Esc close', cols), style: role(theme, 'overlay.title') }],
    [{ text: ' '.repeat(cols), style: base }],
  ];
  if (loading) out.push([{ text: pad('   loading agent definitions…', cols), style: dim }]);
  else if (items.length === 0) out.push([{ text: pad('   no agent definitions: add Markdown files to .castellan/agents/ or ~/.castellan/agents/ (docs/agents.md)', cols), style: dim }]);
  else {
    visible.forEach((a, i) => {
      const at = first + i === index;
      const line = `${at ? ' › ' : '   '}${pad(a.name, nameW)}${pad(a.source + (a.startable ? '' : ' ✗'), 11)}${a.description}`;
      out.push([{ text: pad(line, cols), style: at ? { ...role(theme, 'overlay.key'), inverse: true } : a.startable ? base : dim }]);
    });
  }
  for (let i = out.length - 2; i < bodyH; i++) out.push([{ text: ' '.repeat(cols), style: base }]);
  out.push([{ text: pad(` ${footer}`, cols), style: dim }]);
  return out;
}
