// `prefix s` / `prefix w` drawn by hand: the session → window → pane tree with badges and report messages, a filter
// and a preview, as styled rows that ui/chrome-lines.ts puts over the window area: what Ink's ChooserOverlay drew,
// cell for cell (recorded before it was removed: test/client/chooser-lines.expected.json), without loading Ink.
import type { Theme, ThemeRole } from '../../config/themes.js';
import { BADGE_GLYPH } from '../ui/AgentBadge.js';
import { pad as padRaw, printable } from '../ui/text-width.js';
import { role, type StyledRow } from '../ui/theme-style.js';
import { chooserGeometry, rowsOf, type ChooserState } from './input.js';
import type { ChooserRow } from './tree.js';

// Titles, messages and preview rows come from panes and agents: a control is drawn as a space, measured as one.
const pad = (s: string, n: number): string => padRaw(printable(s), n);

function rowText(r: ChooserRow): { head: string; badge?: { text: string; role: ThemeRole }; tail: string } {
  const fold = r.expandable ? (r.expanded ? '▾ ' : '▸ ') : '  ';
  const needs = r.needs && !r.expanded ? `  ${r.needs} need${r.needs === 1 ? 's' : ''} you` : '';
  if (r.kind === 'session') {
    const n = r.windowCount ?? 0;
    const stale = r.stale ? `  [stale: ${r.stale}]` : '';
    return { head: `${fold}${r.session}${r.current ? ' (attached)' : ''}`, tail: r.unreachable ? '  (not answering)' : `  (${n} window${n === 1 ? '' : 's'})${needs}${stale}` };
  }
  if (r.kind === 'window') {
    const w = r.window!;
    const n = w.panes.length;
    return { head: `  ${fold}${w.index}: ${w.name}${w.current ? '*' : ''}`, tail: `  (${n} pane${n === 1 ? '' : 's'})${needs}` };
  }
  const p = r.pane!;
  const head = `      ${p.id}  ${p.title}`;
  const badge = p.state === 'unknown' ? undefined : { text: `${p.agent ? p.agent + ' ' : ''}${BADGE_GLYPH[p.state]} ${p.state}`, role: `badge.${p.state}` as ThemeRole };
  return { head, ...(badge ? { badge } : {}), tail: `${p.exited ? '  (exited)' : ''}${p.message ? `  “${p.message}”` : ''}` };
}

/** The chooser's rows from the top of the window area (`rows` of them): a header, the tree, the preview, a footer. */
export function chooserLines(s: ChooserState, theme: Theme, cols: number, rows: number): StyledRow[] {
  const base = role(theme, 'overlay');
  const dim = role(theme, 'overlay.dim');
  const title = role(theme, 'overlay.title');
  const { listRows, previewRows } = chooserGeometry(rows);
  const list = rowsOf(s);
  const visible = list.slice(s.scroll, s.scroll + listRows);
  const mode = s.needsMe ? ' · needs me' : '';
  const header = s.filtering || s.filter
    ? ` choose · filter: ${s.filter}${s.filtering ? '█' : ''}${mode}   (Esc clears · Tab keeps · Enter switches)`
    : ` choose a pane${mode} — ↑↓ jk move · ←→ fold · / filter · n needs me · Enter switch · q close`;
  const selected = list.find((r) => r.key === s.cursor);
  const previewTitle = s.preview ? ` preview: ${s.preview.pane}` : selected && s.sessions.find((x) => x.name === selected.session)?.machine ? ` ${selected.session}: on another machine${selected.stale ? ` (stale: ${selected.stale})` : ''}, Enter moves this client there` : selected && selected.session !== s.sessions.find((x) => x.current)?.name ? ` session ${selected.session}: Enter moves this client there` : ' preview';
  // The bottom of the screen is where a prompt or an agent's question is: blank rows below it are dropped first.
  const lines = s.preview?.lines ?? [];
  let end = lines.length;
  while (end > 0 && !lines[end - 1].trim()) end--;
  const preview = lines.slice(Math.max(0, end - previewRows), end);
  const footer = s.message ?? (s.loading ? 'loading…' : `${s.sessions.reduce((n, x) => n + x.windows.reduce((m, w) => m + w.panes.length, 0), 0)} panes · needs me (n) = an agent blocked, or done and not yet seen`);
  const out: StyledRow[] = [[{ text: pad(header, cols), style: title }]];
  const headW = Math.min(cols, Math.max(0, Math.min(cols - 20, 48)));
  for (const r of visible) {
    const at = r.key === s.cursor;
    const t = rowText(r);
    // A machine that has not answered (yet) shows its last known state, dimmed, badges too.
    const style = at ? { ...role(theme, 'overlay.key'), inverse: true } : r.stale ? dim : r.kind === 'pane' ? base : title;
    const badgeW = t.badge ? Math.min(Math.max(0, cols - headW), t.badge.text.length + 2) : 0;
    const row: StyledRow = [{ text: pad(`${at ? '›' : ' '}${t.head}`, headW), style }];
    if (t.badge) row.push({ text: pad(t.badge.text, badgeW), style: at || r.stale ? style : role(theme, t.badge.role) });
    row.push({ text: pad(t.tail, Math.max(0, cols - headW - badgeW)), style: at ? style : dim });
    out.push(row);
  }
  for (let i = visible.length; i < listRows; i++) out.push([{ text: ' '.repeat(cols), style: base }]);
  if (previewRows > 0) {
    out.push([{ text: pad(`─${previewTitle} `, cols).replace(/ +$/, (m) => '─'.repeat(m.length)), style: title }]);
    for (let i = 0; i < previewRows; i++) out.push([{ text: pad(` ${preview[i] ?? ''}`, cols), style: base }]);
  }
  out.push([{ text: pad(` ${footer}`, cols), style: dim }]);
  return out;
}
