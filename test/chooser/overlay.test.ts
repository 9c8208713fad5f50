// The chooser overlay's rows (chooser/lines.ts): tree rows, badges, messages, the filter line and the preview.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chooserInput, chooserLines, openChooser, withData, type ChooserState } from '../../src/client/chooser/index.js';
import { loadTheme } from '../../src/config/themes.js';

const theme = loadTheme('default', {}).theme;
/** The chooser's rows as text, over a 100x30 window area. */
const frame = (s: ChooserState): string[] => chooserLines(s, theme, 100, 30).map((row) => row.map((r) => r.text).join(''));

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
  const lines = frame(state());
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
  const out = frame(s).join('\n');
  assert.match(out.split('\n')[0], /filter: cl█ · needs me/);
  assert.doesNotMatch(out, /w1:p1/, 'the shell neither matches nor needs anyone');
  assert.match(out, /› +w1:p2/);
});
