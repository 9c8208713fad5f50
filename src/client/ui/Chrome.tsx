// The whole chrome of one client through Ink: pane frames and the bar, for a layout with a pane under 2x2 (pane
// contents are painted separately; every other chrome and every overlay is drawn by hand, chrome-lines.ts).
import { Box, Text } from 'ink';
import { areaTop, type ChromeProps } from './chrome-props.js';
import { PaneFrame } from './PaneFrame.js';
import { StatusBar } from './StatusBar.js';
import { role } from './theme-style.js';

export function Chrome(p: ChromeProps) {
  const top = areaTop(p.barAtTop);
  const barRow = p.barAtTop ? 0 : p.rows - 1;
  const { area } = p.view;
  const fillRight = Math.max(0, p.cols - area.cols);
  const fillBottom = Math.max(0, p.rows - 1 - area.rows);
  const dim = role(p.theme, 'pane.border');
  return (
    <Box width={p.cols} height={p.rows} flexDirection="column">
      {p.view.window.panes.map((pane) => (
        <PaneFrame key={pane.id} pane={pane} top={top} theme={p.theme} borders={p.borders} zoomed={p.view.window.zoomed} />
      ))}
      {/* Space this client has beyond the shared window size (a smaller client is attached), as tmux shows it. */}
      {fillRight > 0 && (
        <Box position="absolute" marginLeft={area.cols} marginTop={top} width={fillRight} height={Math.min(area.rows, p.rows - 1)} flexDirection="column">
          {Array.from({ length: Math.min(area.rows, p.rows - 1) }, (_, i) => (
            <Text key={i} {...dim}>{'·'.repeat(fillRight)}</Text>
          ))}
        </Box>
      )}
      {fillBottom > 0 && (
        <Box position="absolute" marginLeft={0} marginTop={top + area.rows} width={p.cols} height={fillBottom} flexDirection="column">
          {Array.from({ length: fillBottom }, (_, i) => (
            <Text key={i} {...dim}>{'·'.repeat(p.cols)}</Text>
          ))}
        </Box>
      )}
      <Box position="absolute" marginLeft={0} marginTop={barRow} width={p.cols} height={1}>
        <StatusBar view={p.view} local={p.local} theme={p.theme} cols={p.cols} prefixKey={p.prefixKey} />
      </Box>
    </Box>
  );
}
