// The Ink chrome (ink-testing-library), what a layout with a pane under 2x2 gets: borders, titles, badges, bar roll-up and prompts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import React from 'react';
import { render } from 'ink-testing-library';
import { Chrome } from '../../src/client/ui/Chrome.js';
import type { ChromeProps } from '../../src/client/ui/chrome-props.js';
import { chromeProps, view } from '../support/chrome-view.js';

const strip = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');

function frame(p: Partial<ChromeProps> = {}): string[] {
  const r = render(<Chrome {...chromeProps(p)} />);
  const out = strip(r.lastFrame() ?? '').split('\n');
  r.unmount();
  return out;
}

test('pane borders carry the pane id, title and agent badge', () => {
  const f = frame();
  assert.equal(f.length, 24);
  assert.match(f[0], /^╭ w1:p1 bash ─+╮╭ w1:p2 claude ─+ claude ● working ╮$/);
  assert.match(f[22], /^╰─+╯╰─+╯$/);
  assert.match(f[5], /^│ {38}││ {38}│$/, 'pane interiors are left blank for the painter');
});

test('the bar shows the session, tabs with roll-up glyphs and the session-wide roll-up', () => {
  const bar = frame()[23];
  assert.match(bar, /^ work  1:agents\* ● {2}2:build ▲ /);
  // (Ink drops uncoloured trailing spaces; with colours on, the bar is padded to the full width.)
  assert.match(bar, /▲1 ●1 ?$/);
  assert.ok([...bar].length <= 80, 'the bar never overflows the terminal');
});

test('the prefix indicator and a notice appear in the bar', () => {
  const bar = frame({ local: { prefix: true, notice: { level: 'warning', text: 'castellan.toml:3: bad value' } } })[23];
  assert.match(bar, /castellan\.toml:3: bad value/);
  assert.match(bar, / C-b {2}▲1 ●1 ?$/);
});

test('an exited pane shows its exit code in the border', () => {
  const v = view();
  v.window.panes[0] = { ...v.window.panes[0], exited: { code: 7 } };
  assert.match(frame({ view: v })[0], /^╭ w1:p1 bash ─+ exited 7 ╮/);
});

test('a bar at the top moves the panes down one row', () => {
  const f = frame({ barAtTop: true });
  assert.match(f[0], /^ work /);
  assert.match(f[1], /^╭ w1:p1 bash/);
});

test('prompts and confirmations take over the bar', () => {
  assert.match(frame({ local: { prefix: false, overlay: { kind: 'prompt', label: 'rename pane w1:p2:', text: 'wor', purpose: 'rename-pane' } } })[23], /^rename pane w1:p2: wor█/);
  assert.match(frame({ local: { prefix: false, overlay: { kind: 'confirm', label: 'close pane w1:p2?', purpose: 'close-pane' } } })[23], /^close pane w1:p2\? \(y\/n\)/);
});

test('a client larger than the shared window size shows the unused area dotted', () => {
  const f = frame({ cols: 90, rows: 26 });
  assert.match(f[3], /│·{10}$/);
  assert.match(f[23], /^·{90}$/);
});

test('wide titles are cut to fit and never push the border', () => {
  const v = view();
  v.window.panes[1] = { ...v.window.panes[1], title: '漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字' };
  const top = frame({ view: v })[0];
  assert.match(top, /…/);
  assert.match(top, /╮$/);
});

test('a zoomed window says so on its tab (Z) and on the pane border ([Z])', () => {
  const v = view();
  v.windows[0] = { ...v.windows[0], zoomed: true };
  v.window = { ...v.window, zoomed: true, panes: [{ ...v.window.panes[1], rect: { x: 0, y: 0, w: 80, h: 23 } }] };
  const f = frame({ view: v });
  assert.match(f[23], / 1:agents\*Z /);
  assert.match(f[0], /^╭ w1:p2 \[Z\] claude /);
});
