// `prefix a`: the agent definitions to launch into a new pane (name, source, description); ↑↓ choose, Enter starts, Esc closes.
import { Box, Text } from 'ink';
import type { Theme } from '../../config/themes.js';
import type { PickerAgent } from '../ui-state.js';
import { pad } from './text-width.js';
import { role } from './theme-style.js';

export interface AgentPickerProps {
  items: PickerAgent[];
  index: number;
  loading: boolean;
  message?: string;
  theme: Theme;
  cols: number;
  rows: number;
  top: number;
}

export function AgentPicker({ items, index, loading, message, theme, cols, rows, top }: AgentPickerProps) {
  const base = role(theme, 'overlay');
  const dim = role(theme, 'overlay.dim');
  const bodyH = Math.max(1, rows - 3);
  // Scrolls only as far as needed to keep the selection in view.
  const first = Math.max(0, index - bodyH + 1);
  const visible = items.slice(first, first + bodyH);
  const nameW = Math.min(24, Math.max(6, ...items.map((a) => a.name.length)) + 2);
  const selected = items[index];
  const footer = message ?? (selected && !selected.startable ? `cannot start: ${selected.reason ?? 'not trusted'}` : selected ? `runs: ${selected.command}` : '');
  return (
    <Box position="absolute" marginLeft={0} marginTop={top} width={cols} height={rows} flexDirection="column">
      <Text {...role(theme, 'overlay.title')}>{pad(' launch an agent in a new pane — ↑↓ choose · Enter start · Esc close', cols)}</Text>
      <Text {...base}>{' '.repeat(cols)}</Text>
      {loading ? (
        <Text {...dim}>{pad('   loading agent definitions…', cols)}</Text>
      ) : items.length === 0 ? (
        <Text {...dim}>{pad('   no agent definitions: add Markdown files to .castellan/agents/ or ~/.castellan/agents/ (docs/agents.md)', cols)}</Text>
      ) : (
        visible.map((a, i) => {
          const at = first + i === index;
          const line = `${at ? ' › ' : '   '}${pad(a.name, nameW)}${pad(a.source + (a.startable ? '' : ' ✗'), 11)}${a.description}`;
          return (
            <Text key={a.name} {...(at ? { ...role(theme, 'overlay.key'), inverse: true } : a.startable ? base : dim)}>
              {pad(line, cols)}
            </Text>
          );
        })
      )}
      {Array.from({ length: Math.max(0, bodyH - (loading || items.length === 0 ? 1 : visible.length)) }, (_, i) => (
        <Text key={`pad${i}`} {...base}>{' '.repeat(cols)}</Text>
      ))}
      <Text {...dim}>{pad(` ${footer}`, cols)}</Text>
    </Box>
  );
}
