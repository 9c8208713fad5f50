// A pane's frame through Ink (overlays and panes under 2x2 draw the whole chrome there): frame-parts.ts says what it shows.
import { Box, Text } from 'ink';
import type { Theme } from '../../config/themes.js';
import type { PaneView } from '../../core/view.js';
import { frameParts } from './frame-parts.js';

export function PaneFrame({ pane, top, theme, borders, zoomed = false }: { pane: PaneView; top: number; theme: Theme; borders: string; zoomed?: boolean }) {
  const { rect } = pane;
  const f = frameParts(pane, theme, borders, zoomed);
  return (
    <>
      <Box position="absolute" marginLeft={rect.x} marginTop={top + rect.y} width={rect.w} height={rect.h} borderStyle={f.box} borderColor={f.borderColor} />
      {rect.w > 4 && (
        <Box position="absolute" marginLeft={rect.x + 1} marginTop={top + rect.y} width={rect.w - 2} height={1}>
          {f.left.map((s) => <Text key={s.key} {...s.style}>{s.text}</Text>)}
          <Box flexGrow={1} />
          {f.right.map((s) => <Text key={s.key} {...s.style}>{s.text}</Text>)}
        </Box>
      )}
    </>
  );
}
