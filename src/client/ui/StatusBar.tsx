// The bar through Ink (overlays and panes under 2x2 draw the whole chrome there): bar-segments.ts says what it shows.
import { Box, Text } from 'ink';
import { barSegments, type BarProps } from './bar-segments.js';

export function StatusBar(p: BarProps) {
  return (
    <Box width={p.cols} height={1} flexDirection="row">
      {barSegments(p).map((s) => (
        <Text key={s.key} {...s.style}>{s.text}</Text>
      ))}
    </Box>
  );
}
