// The chooser overlay through Ink (ink-testing-library): tree rows, badges, messages, the filter line and the preview.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import React from 'react';
import { Box } from 'ink';
import { render } from 'ink-testing-library';
import { ChooserOverlay } from '../../src/client/chooser/ChooserOverlay.js';
import { chooserInput, openChooser, withData, type ChooserState } from '../../src/client/chooser/input.js';
import { loadTheme } from '../../src/config/themes.js';

const theme = loadTheme('default', {}).theme;
const strip = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');
// Overlays are absolutely placed inside the chrome's full-screen box.
const Screen = ({ s }: { s: ChooserState }) => (
  <Box width={100} height={30} flexDirection="column">
    <ChooserOverlay state={s} theme={theme} cols={100} rows={30} top={0} />
  </Box>
);

function state(): ChooserState {
  const s = withData(openChooser('windows'), [
    { name: 'work', current: true, windows: [
      { id: 'w1', index: 1, name: 'agents', current: true, panes: [
        { id: 'w1:p1', title: 'bash', state: 'unknown', active: false },
        { id: 'w1:p2', title: 'claude', state: 'blocked', agent: 'claude', message: 'needs permission to rm -rf', active: true },
      ] },
    ] },
  ]);
  const r = chooserInput(s, { type: 'key', key: 'Right', raw: '' }, 30);
  return { ...r.state!, preview: { pane: 'w1:p2', lines: ['$ claude', 'Allow rm -rf build? (y/n)', '', ''] } };
}

test('rows show the tree with the badge and the report message; the preview shows the bottom of the screen', () => {
  const { lastFrame, unmount } = render(<Screen s={state()} />);
  const lines = strip(lastFrame() ?? '').split('\n');
  unmount();
  assert.match(lines[0], /choose a pane — .*\/ filter · n needs me · Enter switch · q close/);
  assert.match(lines[1], /▾ work \(attached\)/);
  assert.match(lines[2], /›\s+▾ 1: agents\*\s+\(2 panes\)/);
  assert.match(lines[3], /w1:p1\s+bash\s*$/, 'a shell gets no badge');
  assert.match(lines[4], /w1:p2\s+claude\s+claude ▲ blocked\s+“needs permission to rm -rf”/);
  const pv = lines.findIndex((l) => l.includes('preview: w1:p2'));
  assert.ok(pv > 4, 'a preview title below the list');
  assert.ok(lines.some((l, i) => i > pv && l.includes('Allow rm -rf build? (y/n)')));
  assert.match(lines[lines.length - 1], /2 panes · needs me \(n\) = an agent blocked, or done and not yet seen/);
});

test('the header shows the filter while typing it, and the needs-me mode', () => {
  let s = state();
  for (const k of ['n', '/', 'c', 'l']) s = chooserInput(s, { type: 'key', key: k, raw: k }, 30).state!;
  const { lastFrame, unmount } = render(<Screen s={s} />);
  const out = strip(lastFrame() ?? '');
  unmount();
  assert.match(out.split('\n')[0], /filter: cl█ · needs me/);
  assert.doesNotMatch(out, /w1:p1/, 'the shell neither matches nor needs anyone');
  assert.match(out, /› +w1:p2/);
});
