// The chrome of a delegation tree: the child's border names parent→child, the parent's badge carries the roll-up.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import React from 'react';
import { render } from 'ink-testing-library';
import { Chrome } from '../../src/client/ui/Chrome.js';
import type { ChromeProps } from '../../src/client/ui/chrome-props.js';
import { childrenText } from '../../src/client/ui/frame-parts.js';
import { loadTheme } from '../../src/config/themes.js';
import type { ViewModel } from '../../src/core/view.js';
import { DEFAULT_BINDINGS } from '../../src/input/default-keymap.js';

const theme = loadTheme('default', {}).theme;
const strip = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');
const counts = (o: Partial<Record<'idle' | 'working' | 'blocked' | 'done' | 'unknown', number>>) => ({ idle: 0, working: 0, blocked: 0, done: 0, unknown: 0, ...o });

test('parent border: badge then the children roll-up; child borders: p1→pN', () => {
  const view: ViewModel = {
    session: 'work',
    area: { cols: 100, rows: 23 },
    windows: [{ id: 'w1', index: 1, name: 'agents', current: true, alert: false, panes: 3, rollup: 'blocked', zoomed: false }],
    window: {
      id: 'w1',
      zoomed: false,
      panes: [
        { id: 'w1:p1', title: 'claude', rect: { x: 0, y: 0, w: 50, h: 23 }, focused: true, agent: 'claude', state: 'working', waiting: false, children: { total: 2, live: 2, rollup: 'blocked', counts: counts({ blocked: 1, working: 1 }) } },
        { id: 'w1:p2', title: 'child.sh', rect: { x: 50, y: 0, w: 50, h: 12 }, focused: false, agent: 'child', state: 'blocked', waiting: false, parent: 'w1:p1' },
        { id: 'w1:p3', title: 'child.sh', rect: { x: 50, y: 12, w: 50, h: 11 }, focused: false, agent: 'child', state: 'working', waiting: false, parent: 'w1:p1' },
      ],
    },
    counts: counts({ blocked: 1, working: 2 }),
  };
  const props: ChromeProps = { view, local: { prefix: false }, theme, cols: 100, rows: 24, barAtTop: false, borders: 'rounded', bindings: DEFAULT_BINDINGS, prefixKey: 'C-b' };
  const r = render(<Chrome {...props} />);
  const f = strip(r.lastFrame() ?? '').split('\n');
  r.unmount();
  assert.match(f[0], /^╭ w1:p1 claude ─+ claude ● working ⎇2 ▲1 ●1 ╮╭ w1:p1→p2 child\.sh ─+ child ▲ blocked ╮$/);
  assert.match(f[12], /^│ +│╭ w1:p1→p3 child\.sh ─+ child ● working ╮$/);
});

test('the roll-up text: nothing without running children; states in the order they need the user', () => {
  assert.equal(childrenText(undefined), '');
  assert.equal(childrenText({ total: 2, live: 0, counts: counts({}) }), '');
  assert.equal(childrenText({ total: 4, live: 4, rollup: 'blocked', counts: counts({ idle: 1, done: 1, blocked: 1, unknown: 1 }) }), '⎇4 ▲1 ✔1 ○1 ');
});
