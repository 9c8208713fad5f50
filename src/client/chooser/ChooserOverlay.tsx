// `prefix s` / `prefix w`: the session → window → pane tree with badges and report messages, a filter, and a preview.
import { Box, Text } from 'ink';
import type { Theme, ThemeRole } from '../../config/themes.js';
import { BADGE_GLYPH } from '../ui/AgentBadge.js';
import { pad } from '../ui/text-width.js';
import { role } from '../ui/theme-style.js';
import { chooserGeometry, rowsOf, type ChooserState } from './input.js';
import type { ChooserRow } from './tree.js';

export interface ChooserOverlayProps {
  state: ChooserState;
  theme: Theme;
  cols: number;
  rows: number;
  top: number;
}

function rowText(r: ChooserRow): { head: string; badge?: { text: string; role: ThemeRole }; tail: string } {
  const fold = r.expandable ? (r.expanded ? '▾ ' : '▸ ') : '  ';
  const needs = r.needs && !r.expanded ? `  ${r.needs} need${r.needs === 1 ? 's' : ''} you` : '';
  if (r.kind === 'session') {
    const n = r.windowCount ?? 0;
    return { head: `${fold}${r.session}${r.current ? ' (attached)' : ''}`, tail: r.unreachable ? '  (not answering)' : `  (${n} window${n === 1 ? '' : 's'})${needs}` };
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

export function ChooserOverlay({ state: s, theme, cols, rows, top }: ChooserOverlayProps) {
  const base = role(theme, 'overlay');
  const dim = role(theme, 'overlay.dim');
  const { listRows, previewRows } = chooserGeometry(rows);
  const list = rowsOf(s);
  const visible = list.slice(s.scroll, s.scroll + listRows);
  const mode = s.needsMe ? ' · needs me' : '';
  const header = s.filtering || s.filter
    ? ` choose · filter: ${s.filter}${s.filtering ? '█' : ''}${mode}   (Esc clears · Tab keeps · Enter switches)`
    : ` choose a pane${mode} — ↑↓ jk move · ←→ fold · / filter · n needs me · Enter switch · q close`;
  const selected = list.find((r) => r.key === s.cursor);
  const previewTitle = s.preview ? ` preview: ${s.preview.pane}` : selected && selected.session !== s.sessions.find((x) => x.current)?.name ? ` session ${selected.session}: Enter moves this client there` : ' preview';
  // The bottom of the screen is where a prompt or an agent's question is: blank rows below it are dropped first.
  const lines = s.preview?.lines ?? [];
  let end = lines.length;
  while (end > 0 && !lines[end - 1].trim()) end--;
  const preview = lines.slice(Math.max(0, end - previewRows), end);
  const footer = s.message ?? (s.loading ? 'loading…' : `${s.sessions.reduce((n, x) => n + x.windows.reduce((m, w) => m + w.panes.length, 0), 0)} panes · needs me (n) = an agent blocked, or done and not yet seen`);
  return (
    <Box position="absolute" marginLeft={0} marginTop={top} width={cols} height={rows} flexDirection="column">
      <Text {...role(theme, 'overlay.title')}>{pad(header, cols)}</Text>
      {visible.map((r) => {
        const at = r.key === s.cursor;
        const t = rowText(r);
        const style = at ? { ...role(theme, 'overlay.key'), inverse: true } : r.kind === 'pane' ? base : role(theme, 'overlay.title');
        const headW = Math.min(cols, Math.max(0, Math.min(cols - 20, 48)));
        const badgeW = t.badge ? Math.min(Math.max(0, cols - headW), t.badge.text.length + 2) : 0;
        return (
          <Box key={r.key} width={cols}>
            <Text {...style}>{pad(`${at ? '›' : ' '}${t.head}`, t.badge || r.kind === 'pane' ? headW : Math.min(cols, headW))}</Text>
            {t.badge && <Text {...(at ? style : role(theme, t.badge.role))}>{pad(t.badge.text, badgeW)}</Text>}
            <Text {...(at ? style : dim)}>{pad(t.tail, Math.max(0, cols - headW - badgeW))}</Text>
          </Box>
        );
      })}
      {Array.from({ length: Math.max(0, listRows - visible.length) }, (_, i) => (
        <Text key={`pad${i}`} {...base}>{' '.repeat(cols)}</Text>
      ))}
      {previewRows > 0 && <Text {...role(theme, 'overlay.title')}>{pad(`─${previewTitle} `, cols).replace(/ +$/, (m) => '─'.repeat(m.length))}</Text>}
      {previewRows > 0 &&
        Array.from({ length: previewRows }, (_, i) => (
          <Text key={`pv${i}`} {...base}>{pad(` ${preview[i] ?? ''}`, cols)}</Text>
        ))}
      <Text {...dim}>{pad(` ${footer}`, cols)}</Text>
    </Box>
  );
}
