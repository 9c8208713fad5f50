// The split tree of a window: split, close, swap, resize, neighbours, and integer rects that tile an area.
import type { Direction, LayoutNode, PaneId, Rect } from './types.js';

/** Smallest outer size of a pane: a border on each side and at least 2x1 cells inside. */
export const MIN_W = 4;
export const MIN_H = 3;

export const leaf = (pane: PaneId): LayoutNode => ({ kind: 'leaf', pane });

export function panesOf(node: LayoutNode): PaneId[] {
  return node.kind === 'leaf' ? [node.pane] : [...panesOf(node.a), ...panesOf(node.b)];
}

/** Puts `newPane` beside `target` on the given side; `share` is the new pane's part of the space (0..1). */
export function splitPane(node: LayoutNode, target: PaneId, newPane: PaneId, side: Direction, share = 0.5): LayoutNode {
  if (node.kind === 'leaf') {
    if (node.pane !== target) return node;
    const axis = side === 'left' || side === 'right' ? 'row' : 'col';
    const first = side === 'left' || side === 'up';
    return first
      ? { kind: 'split', axis, ratio: share, a: leaf(newPane), b: node }
      : { kind: 'split', axis, ratio: 1 - share, a: node, b: leaf(newPane) };
  }
  return { ...node, a: splitPane(node.a, target, newPane, side, share), b: splitPane(node.b, target, newPane, side, share) };
}

/** Removes a pane; its sibling takes the space. Returns null when the tree held only that pane. */
export function removePane(node: LayoutNode, pane: PaneId): LayoutNode | null {
  if (node.kind === 'leaf') return node.pane === pane ? null : node;
  const a = removePane(node.a, pane);
  const b = removePane(node.b, pane);
  if (!a) return b;
  if (!b) return a;
  return a === node.a && b === node.b ? node : { ...node, a, b };
}

export function swapPanes(node: LayoutNode, p: PaneId, q: PaneId): LayoutNode {
  if (node.kind === 'leaf') return node.pane === p ? leaf(q) : node.pane === q ? leaf(p) : node;
  return { ...node, a: swapPanes(node.a, p, q), b: swapPanes(node.b, p, q) };
}

function splitSizes(total: number, ratio: number, minA: number, minB: number): [number, number] {
  let a = Math.round(total * ratio);
  a = Math.max(minA, Math.min(total - minB, a));
  if (total < minA + minB) a = Math.max(0, Math.min(total, Math.round(total * ratio)));
  return [a, total - a];
}

/** Minimum outer size a subtree needs. */
export function minSize(node: LayoutNode): { w: number; h: number } {
  if (node.kind === 'leaf') return { w: MIN_W, h: MIN_H };
  const a = minSize(node.a);
  const b = minSize(node.b);
  return node.axis === 'row' ? { w: a.w + b.w, h: Math.max(a.h, b.h) } : { w: Math.max(a.w, b.w), h: a.h + b.h };
}

/** Outer rects (border included) of every pane; they tile `area` exactly, with no gaps or overlaps. */
export function computeRects(node: LayoutNode, area: Rect, out = new Map<PaneId, Rect>()): Map<PaneId, Rect> {
  if (node.kind === 'leaf') {
    out.set(node.pane, area);
    return out;
  }
  const ma = minSize(node.a);
  const mb = minSize(node.b);
  if (node.axis === 'row') {
    const [wa, wb] = splitSizes(area.w, node.ratio, ma.w, mb.w);
    computeRects(node.a, { x: area.x, y: area.y, w: wa, h: area.h }, out);
    computeRects(node.b, { x: area.x + wa, y: area.y, w: wb, h: area.h }, out);
  } else {
    const [ha, hb] = splitSizes(area.h, node.ratio, ma.h, mb.h);
    computeRects(node.a, { x: area.x, y: area.y, w: area.w, h: ha }, out);
    computeRects(node.b, { x: area.x, y: area.y + ha, w: area.w, h: hb }, out);
  }
  return out;
}

/** Whether splitting `target` toward `side` leaves both panes at least their minimum size. */
export function canSplit(node: LayoutNode, area: Rect, target: PaneId, side: Direction): boolean {
  const trial = splitPane(node, target, '\0new', side);
  const need = minSize(trial);
  if (area.w < need.w || area.h < need.h) return false;
  const rects = computeRects(trial, area);
  for (const r of rects.values()) if (r.w < MIN_W || r.h < MIN_H) return false;
  return true;
}

/** Pane whose rect touches `pane`'s edge on the given side, preferring the largest shared edge, then the top/left-most. */
export function neighbor(node: LayoutNode, area: Rect, pane: PaneId, dir: Direction, hint?: { x: number; y: number }): PaneId | null {
  const rects = computeRects(node, area);
  const me = rects.get(pane);
  if (!me) return null;
  let best: PaneId | null = null;
  let bestScore = -Infinity;
  for (const [id, r] of rects) {
    if (id === pane) continue;
    let touches = false;
    let overlap = 0;
    if (dir === 'left' || dir === 'right') {
      touches = dir === 'left' ? r.x + r.w === me.x : me.x + me.w === r.x;
      overlap = Math.min(me.y + me.h, r.y + r.h) - Math.max(me.y, r.y);
    } else {
      touches = dir === 'up' ? r.y + r.h === me.y : me.y + me.h === r.y;
      overlap = Math.min(me.x + me.w, r.x + r.w) - Math.max(me.x, r.x);
    }
    if (!touches || overlap <= 0) continue;
    // A hint (e.g. the cursor's screen position) wins: pick the neighbour in line with it, as tmux does.
    let score = overlap;
    if (hint) {
      const inLine = dir === 'left' || dir === 'right' ? hint.y >= r.y && hint.y < r.y + r.h : hint.x >= r.x && hint.x < r.x + r.w;
      if (inLine) score += 100000;
    }
    score -= (dir === 'left' || dir === 'right' ? r.y : r.x) / 1000;
    if (score > bestScore) {
      bestScore = score;
      best = id;
    }
  }
  return best;
}

type Path = Array<{ node: Extract<LayoutNode, { kind: 'split' }>; side: 'a' | 'b' }>;

function pathTo(node: LayoutNode, pane: PaneId, path: Path = []): Path | null {
  if (node.kind === 'leaf') return node.pane === pane ? path : null;
  return pathTo(node.a, pane, [...path, { node, side: 'a' }]) ?? pathTo(node.b, pane, [...path, { node, side: 'b' }]);
}

function replaceNode(root: LayoutNode, from: LayoutNode, to: LayoutNode): LayoutNode {
  if (root === from) return to;
  if (root.kind === 'leaf') return root;
  const a = replaceNode(root.a, from, to);
  const b = replaceNode(root.b, from, to);
  return a === root.a && b === root.b ? root : { ...root, a, b };
}

function rectOf(root: LayoutNode, area: Rect, target: LayoutNode): Rect | null {
  if (root === target) return area;
  if (root.kind === 'leaf') return null;
  const ma = minSize(root.a);
  const mb = minSize(root.b);
  if (root.axis === 'row') {
    const [wa, wb] = splitSizes(area.w, root.ratio, ma.w, mb.w);
    return rectOf(root.a, { ...area, w: wa }, target) ?? rectOf(root.b, { ...area, x: area.x + wa, w: wb }, target);
  }
  const [ha, hb] = splitSizes(area.h, root.ratio, ma.h, mb.h);
  return rectOf(root.a, { ...area, h: ha }, target) ?? rectOf(root.b, { ...area, y: area.y + ha, h: hb }, target);
}

type SplitNode = Extract<LayoutNode, { kind: 'split' }>;

/**
 * The split whose border tmux's resize-pane moves for `pane` along `axis`. tmux keeps same-axis splits as one row of
 * cells ([a|b|c], where castellan nests row(row(a,b),c)): it takes the pane's cell in the nearest such row and moves the
 * border after it, or the one before it when the cell is the row's last. Here that row is the run of same-axis splits
 * above the pane's cell: the border after the cell is the deepest of them the cell sits on the `a` side of.
 */
function tmuxBorder(path: Path, axis: 'row' | 'col'): SplitNode | undefined {
  let k = path.length - 1;
  while (k >= 0 && path[k].node.axis !== axis) k--;
  if (k < 0) return undefined;
  for (let j = k; j >= 0 && path[j].node.axis === axis; j--) if (path[j].side === 'a') return path[j].node;
  return path[k].node;
}

/** Moves `split`'s border by `delta` cells (positive: right/down), clamped so both sides keep their minimum size. */
function moveBorder(root: LayoutNode, area: Rect, split: SplitNode, delta: number): LayoutNode {
  const r = rectOf(root, area, split);
  if (!r) return root;
  const row = split.axis === 'row';
  const total = row ? r.w : r.h;
  if (total <= 0) return root;
  const ma = minSize(split.a);
  const mb = minSize(split.b);
  const minA = row ? ma.w : ma.h;
  const minB = row ? mb.w : mb.h;
  const [curA] = splitSizes(total, split.ratio, minA, minB);
  const newA = Math.max(minA, Math.min(total - minB, curA + delta));
  if (newA === curA) return root;
  // As in tmux, only the cells beside the border change size: the rest of a same-axis run keeps its cells.
  const a = keepFar(split.a, split.axis, curA, newA, 'b');
  const b = keepFar(split.b, split.axis, total - curA, total - newA, 'a');
  return replaceNode(root, split, { ...split, ratio: newA / total, a, b });
}

/**
 * A subtree resized from `from` to `to` cells along `axis` on its `near` side: its same-axis splits keep the far cells'
 * sizes, so the change lands on the cell that touches the moved border (when that cell can take it).
 */
function keepFar(node: LayoutNode, axis: 'row' | 'col', from: number, to: number, near: 'a' | 'b'): LayoutNode {
  if (node.kind === 'leaf' || node.axis !== axis || from <= 0 || to <= 0) return node;
  const min = (n: LayoutNode) => (axis === 'row' ? minSize(n).w : minSize(n).h);
  const [fromA, fromB] = splitSizes(from, node.ratio, min(node.a), min(node.b));
  const far = near === 'b' ? fromA : fromB;
  const nearMin = min(near === 'b' ? node.b : node.a);
  const keep = Math.max(min(near === 'b' ? node.a : node.b), Math.min(far, to - nearMin));
  if (keep <= 0 || keep >= to) return node;
  return near === 'b'
    ? { ...node, ratio: keep / to, b: keepFar(node.b, axis, fromB, to - keep, near) }
    : { ...node, ratio: (to - keep) / to, a: keepFar(node.a, axis, fromA, to - keep, near) };
}

/**
 * tmux resize-pane -L/-R/-U/-D: moves one border of the pane's row (or column) of cells by `cells` toward `dir`: the
 * border after the pane's cell, or before it for the last cell (so -R on the right-hand pane shrinks it). Clamps to
 * minimum sizes.
 */
export function resizePane(root: LayoutNode, area: Rect, pane: PaneId, dir: Direction, cells: number): LayoutNode {
  const path = pathTo(root, pane);
  if (!path) return root;
  const split = tmuxBorder(path, dir === 'left' || dir === 'right' ? 'row' : 'col');
  if (!split) return root;
  return moveBorder(root, area, split, dir === 'right' || dir === 'down' ? cells : -cells);
}

/**
 * A mouse drag on the border between panes `a` and `b` (which touch across it): moves exactly that border, the split
 * that parts them (their nearest common split), whatever nests inside it. Nothing when they share no such split.
 */
export function resizeBetween(root: LayoutNode, area: Rect, a: PaneId, b: PaneId, dir: Direction, cells: number): LayoutNode {
  const pa = pathTo(root, a);
  const pb = pathTo(root, b);
  if (!pa || !pb) return root;
  let i = 0;
  while (i < pa.length && i < pb.length && pa[i].node === pb[i].node && pa[i].side === pb[i].side) i++;
  const split = pa[i]?.node === pb[i]?.node ? pa[i]?.node : undefined;
  const axis = dir === 'left' || dir === 'right' ? 'row' : 'col';
  if (!split || split.axis !== axis) return root;
  return moveBorder(root, area, split, dir === 'right' || dir === 'down' ? cells : -cells);
}

/** The same tree with its panes moved one place in order (down: each to the next place, the last to the first). */
export function rotatePanes(node: LayoutNode, direction: 'up' | 'down'): LayoutNode {
  const order = panesOf(node);
  if (order.length < 2) return node;
  const n = order.length;
  const at = new Map(order.map((p, i) => [i, order[(i + (direction === 'down' ? n - 1 : 1)) % n]]));
  let i = 0;
  const walk = (x: LayoutNode): LayoutNode => (x.kind === 'leaf' ? leaf(at.get(i++)!) : { ...x, a: walk(x.a), b: walk(x.b) });
  return walk(node);
}

/** Resets every split to an even share (tmux select-layout -E style, used after closing panes if wanted). */
export function equalize(node: LayoutNode): LayoutNode {
  if (node.kind === 'leaf') return node;
  const na = panesOf(node.a).length;
  const nb = panesOf(node.b).length;
  return { ...node, ratio: na / (na + nb), a: equalize(node.a), b: equalize(node.b) };
}

/** Inner rect (inside the border) where the pane's screen is drawn. */
export const innerRect = (r: Rect): Rect => ({ x: r.x + 1, y: r.y + 1, w: Math.max(1, r.w - 2), h: Math.max(1, r.h - 2) });
