// Layout tree: splitting, closing, swapping, rect tiling, neighbours and resizing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canSplit, computeRects, equalize, leaf, MIN_H, MIN_W, neighbor, panesOf, removePane, resizeBetween, resizePane, splitPane, swapPanes } from '../../src/core/layout.js';
import type { LayoutNode, Rect } from '../../src/core/types.js';

const area: Rect = { x: 0, y: 0, w: 80, h: 23 };

/** Every cell of the area is covered by exactly one rect. */
function assertTiles(node: LayoutNode, a: Rect) {
  const rects = computeRects(node, a);
  const seen = new Uint8Array(a.w * a.h);
  for (const r of rects.values()) {
    assert.ok(r.w >= 0 && r.h >= 0);
    for (let y = r.y; y < r.y + r.h; y++) for (let x = r.x; x < r.x + r.w; x++) seen[(y - a.y) * a.w + (x - a.x)]++;
  }
  assert.ok(seen.every((n) => n === 1), 'rects tile the area exactly');
  return rects;
}

test('split right then down tiles the area and orders panes', () => {
  let t = leaf('w1:p1');
  t = splitPane(t, 'w1:p1', 'w1:p2', 'right');
  t = splitPane(t, 'w1:p2', 'w1:p3', 'down');
  assert.deepEqual(panesOf(t), ['w1:p1', 'w1:p2', 'w1:p3']);
  const r = assertTiles(t, area);
  assert.deepEqual(r.get('w1:p1'), { x: 0, y: 0, w: 40, h: 23 });
  assert.deepEqual(r.get('w1:p2'), { x: 40, y: 0, w: 40, h: 12 });
  assert.deepEqual(r.get('w1:p3'), { x: 40, y: 12, w: 40, h: 11 });
});

test('split left/up puts the new pane first; share is honoured', () => {
  const t = splitPane(leaf('a'), 'a', 'b', 'left', 0.25);
  assert.deepEqual(panesOf(t), ['b', 'a']);
  assert.equal(computeRects(t, area).get('b')!.w, 20);
  const u = splitPane(leaf('a'), 'a', 'b', 'up');
  assert.deepEqual(panesOf(u), ['b', 'a']);
});

test('remove gives the space to the sibling; removing the last pane returns null', () => {
  let t = splitPane(leaf('a'), 'a', 'b', 'right');
  t = splitPane(t, 'b', 'c', 'down');
  const r = removePane(t, 'b')!;
  assert.deepEqual(panesOf(r), ['a', 'c']);
  assert.deepEqual(computeRects(r, area).get('c'), { x: 40, y: 0, w: 40, h: 23 });
  assert.equal(removePane(leaf('a'), 'a'), null);
  assert.equal(removePane(leaf('a'), 'zz')?.kind, 'leaf');
});

test('swap exchanges positions', () => {
  const t = swapPanes(splitPane(leaf('a'), 'a', 'b', 'right'), 'a', 'b');
  assert.deepEqual(panesOf(t), ['b', 'a']);
});

test('neighbours follow geometry, prefer the hint line, and stop at edges', () => {
  let t = splitPane(leaf('a'), 'a', 'b', 'right');
  t = splitPane(t, 'b', 'c', 'down');
  assert.equal(neighbor(t, area, 'a', 'right'), 'b');
  assert.equal(neighbor(t, area, 'a', 'right', { x: 10, y: 20 }), 'c');
  assert.equal(neighbor(t, area, 'c', 'up'), 'b');
  assert.equal(neighbor(t, area, 'c', 'left'), 'a');
  assert.equal(neighbor(t, area, 'a', 'left'), null);
  assert.equal(neighbor(t, area, 'b', 'down'), 'c');
});

test('resize moves the shared edge and clamps at minimum sizes', () => {
  const t = splitPane(leaf('a'), 'a', 'b', 'right');
  const g = resizePane(t, area, 'a', 'right', 5);
  assert.equal(computeRects(g, area).get('a')!.w, 45);
  // the right-hand pane moving "right" moves its left edge: it shrinks
  const s = resizePane(t, area, 'b', 'right', 5);
  assert.equal(computeRects(s, area).get('b')!.w, 35);
  const big = resizePane(t, area, 'a', 'right', 1000);
  assert.equal(computeRects(big, area).get('b')!.w, MIN_W);
  const noop = resizePane(t, area, 'a', 'down', 3);
  assert.equal(noop, t, 'no vertical split: nothing to resize');
  assertTiles(big, area);
});

test('canSplit refuses splits that would go below the minimum', () => {
  const tiny: Rect = { x: 0, y: 0, w: 7, h: 5 };
  assert.equal(canSplit(leaf('a'), tiny, 'a', 'right'), false);
  assert.equal(canSplit(leaf('a'), { ...tiny, w: 8 }, 'a', 'right'), true);
  assert.equal(canSplit(leaf('a'), tiny, 'a', 'down'), false);
  assert.equal(canSplit(leaf('a'), { ...tiny, h: MIN_H * 2 }, 'a', 'down'), true);
});

test('random trees always tile any area they fit in', () => {
  let seed = 42;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  for (let round = 0; round < 200; round++) {
    let t = leaf('p0');
    const a: Rect = { x: 0, y: 0, w: 40 + Math.floor(rnd() * 200), h: 10 + Math.floor(rnd() * 60) };
    for (let i = 1; i < 8; i++) {
      const ids = panesOf(t);
      const target = ids[Math.floor(rnd() * ids.length)];
      const dir = (['left', 'right', 'up', 'down'] as const)[Math.floor(rnd() * 4)];
      if (canSplit(t, a, target, dir)) t = splitPane(t, target, 'p' + i, dir, 0.2 + rnd() * 0.6);
      if (rnd() < 0.3) t = resizePane(t, a, ids[0], dir, Math.floor(rnd() * 10) + 1);
    }
    const rects = assertTiles(t, a);
    for (const r of rects.values()) assert.ok(r.w >= MIN_W && r.h >= MIN_H, `pane ${JSON.stringify(r)} too small in ${a.w}x${a.h}`);
    assertTiles(equalize(t), a);
  }
});

// Issue 30 item 1: `prefix %`, `prefix Left`, `prefix %` gives row(row(p1, p3), p2): tmux keeps it as one row [p1|p3|p2].
const nested = (): LayoutNode => ({ kind: 'split', axis: 'row', ratio: 0.5, a: { kind: 'split', axis: 'row', ratio: 0.5, a: leaf('p1'), b: leaf('p3') }, b: leaf('p2') });
const wide: Rect = { x: 0, y: 0, w: 120, h: 30 };
const widths = (t: LayoutNode) => ['p1', 'p3', 'p2'].map((p) => computeRects(t, wide).get(p)!.w);

test('keyboard resize in a nested layout moves the border tmux moves: the one after the pane, the one before for the last', () => {
  assert.deepEqual(widths(nested()), [30, 30, 60]);
  // resize-pane -L on the middle pane: its right border (p3|p2) moves left, p1 stays
  assert.deepEqual(widths(resizePane(nested(), wide, 'p3', 'left', 5)), [30, 25, 65]);
  assert.deepEqual(widths(resizePane(nested(), wide, 'p3', 'right', 5)), [30, 35, 55]);
  // the first pane: its right border, either way
  assert.deepEqual(widths(resizePane(nested(), wide, 'p1', 'left', 5)), [25, 35, 60]);
  // the last pane: the border before it
  assert.deepEqual(widths(resizePane(nested(), wide, 'p2', 'right', 5)), [30, 35, 55]);
  // across a split of the other axis: col(p1, row(p2, p3)); p3 -U moves the only horizontal border
  const mixed: LayoutNode = { kind: 'split', axis: 'col', ratio: 0.5, a: leaf('p1'), b: { kind: 'split', axis: 'row', ratio: 0.5, a: leaf('p2'), b: leaf('p3') } };
  assert.equal(computeRects(resizePane(mixed, wide, 'p3', 'up', 3), wide).get('p1')!.h, 12);
});

test('resizeBetween moves exactly the border between two panes: the outer one of a nested layout too', () => {
  // dragging the p3|p2 border 10 left moves the outer split; p1, away from it, keeps its size
  const t = resizeBetween(nested(), wide, 'p3', 'p2', 'left', 10);
  assert.deepEqual(widths(t), [30, 20, 70]);
  assert.deepEqual(widths(resizeBetween(nested(), wide, 'p1', 'p3', 'left', 10)), [20, 40, 60]);
  // panes that share no border of that axis: nothing moves
  const n = nested();
  assert.equal(resizeBetween(n, wide, 'p1', 'p3', 'up', 3), n);
  assert.equal(resizeBetween(n, wide, 'p1', 'nosuch', 'left', 3), n);
  assertTiles(resizeBetween(n, wide, 'p3', 'p2', 'left', 1000), wide);
});
