// tmux's preset layouts as pure trees: every pane kept in order, sizes even, the main pane first, grids near square.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { computeRects, leaf, panesOf, splitPane } from '../../src/core/layout.js';
import { cycleLayout, LAYOUT_NAMES, presetLayout } from '../../src/core/layout-presets.js';
import type { LayoutNode } from '../../src/core/types.js';

function tree(n: number): LayoutNode {
  let t: LayoutNode = leaf('w1:p1');
  for (let i = 2; i <= n; i++) t = splitPane(t, `w1:p${i - 1}`, `w1:p${i}`, i % 2 ? 'down' : 'right');
  return t;
}
const AREA = { x: 0, y: 0, w: 120, h: 40 };
const rects = (t: LayoutNode) => [...computeRects(t, AREA).values()];

test('every preset keeps every pane, in order, and tiles the window exactly', () => {
  for (const n of [1, 2, 3, 4, 5, 7, 9]) {
    for (const name of LAYOUT_NAMES) {
      const t = presetLayout(name, tree(n));
      assert.deepEqual(panesOf(t), panesOf(tree(n)), `${name} with ${n}`);
      const area = rects(t).reduce((s, r) => s + r.w * r.h, 0);
      assert.equal(area, AREA.w * AREA.h, `${name} with ${n} covers the window`);
    }
  }
});

test('even layouts give every pane the same size (within a cell)', () => {
  const h = rects(presetLayout('even-horizontal', tree(4)));
  assert.ok(h.every((r) => r.h === 40));
  assert.ok(Math.max(...h.map((r) => r.w)) - Math.min(...h.map((r) => r.w)) <= 1, JSON.stringify(h));
  const v = rects(presetLayout('even-vertical', tree(4)));
  assert.ok(v.every((r) => r.w === 120));
  assert.ok(Math.max(...v.map((r) => r.h)) - Math.min(...v.map((r) => r.h)) <= 1, JSON.stringify(v));
});

test('main layouts: the first pane takes 60% on the left (vertical) or the top (horizontal); the rest share the remainder', () => {
  const mv = computeRects(presetLayout('main-vertical', tree(4)), AREA);
  assert.deepEqual(mv.get('w1:p1'), { x: 0, y: 0, w: 72, h: 40 });
  for (const p of ['w1:p2', 'w1:p3', 'w1:p4']) assert.equal(mv.get(p)!.x, 72);
  const mh = computeRects(presetLayout('main-horizontal', tree(3)), AREA);
  assert.deepEqual(mh.get('w1:p1'), { x: 0, y: 0, w: 120, h: 24 });
  assert.equal(mh.get('w1:p2')!.w + mh.get('w1:p3')!.w, 120);
});

test('tiled: a near-square grid, the short last row widened', () => {
  const five = rects(presetLayout('tiled', tree(5)));
  assert.deepEqual([...new Set(five.map((r) => r.y))].length, 2, '5 panes: 2 rows');
  assert.deepEqual(five.filter((r) => r.y === 0).length, 3, '3 on top');
  assert.deepEqual(five.filter((r) => r.y > 0).map((r) => r.w), [60, 60], '2 wider ones below');
  const four = rects(presetLayout('tiled', tree(4)));
  assert.deepEqual(four.map((r) => [r.w, r.h]), [[60, 20], [60, 20], [60, 20], [60, 20]]);
});

test('the cycle follows tmux\'s order and wraps both ways', () => {
  assert.equal(cycleLayout(undefined, 1), 'even-horizontal');
  assert.equal(cycleLayout('tiled', 1), 'even-horizontal');
  assert.equal(cycleLayout('even-horizontal', -1), 'tiled');
  assert.equal(cycleLayout(undefined, -1), 'tiled');
});
