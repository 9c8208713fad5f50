// `prefix ?`: every binding from the keymap table, grouped, searchable, scrollable.
import { Box, Text } from 'ink';
import type { Theme } from '../../config/themes.js';
import type { Binding } from '../../input/keymap.js';
import { helpRows } from './help-rows.js';
import { pad } from './text-width.js';
import { role } from './theme-style.js';

export function HelpOverlay({ bindings, prefix, filter, filtering, scroll, theme, cols, rows, top }: {
  bindings: Binding[]; prefix: string; filter: string; filtering: boolean; scroll: number; theme: Theme; cols: number; rows: number; top: number;
}) {
  const list = helpRows(bindings, prefix, filter);
  const bodyH = Math.max(1, rows - 3);
  const start = Math.max(0, Math.min(scroll, Math.max(0, list.length - bodyH)));
  const visible = list.slice(start, start + bodyH);
  const base = role(theme, 'overlay');
  const header = filter || filtering ? ` castellan keys · filter: ${filter}${filtering ? '█' : ''}   (Enter keeps it, Esc clears)` : ' castellan keys — / search · ↑↓ PgUp PgDn g G scroll · q or Esc close';
  const keyW = 14;
  return (
    <Box position="absolute" marginLeft={0} marginTop={top} width={cols} height={rows} flexDirection="column">
      <Text {...role(theme, 'overlay.title')}>{pad(header, cols)}</Text>
      <Text {...base}>{' '.repeat(cols)}</Text>
      {visible.map((r, i) =>
        r.group ? (
          <Text key={i} {...role(theme, 'overlay.title')}>{pad(` ${r.group}`, cols)}</Text>
        ) : (
          <Box key={i} width={cols}>
            <Text {...role(theme, 'overlay.key')}>{pad(`   ${r.key}`, keyW + 3)}</Text>
            <Text {...base}>{pad(r.text ?? '', Math.max(0, cols - keyW - 3))}</Text>
          </Box>
        ),
      )}
      {Array.from({ length: Math.max(0, bodyH - visible.length) }, (_, i) => (
        <Text key={`pad${i}`} {...base}>{' '.repeat(cols)}</Text>
      ))}
      <Text {...role(theme, 'overlay.dim')}>{pad(` ${list.filter((r) => r.key).length} bindings · rows ${start + 1}-${start + visible.length} of ${list.length}`, cols)}</Text>
    </Box>
  );
}
