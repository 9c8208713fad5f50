// tmux's preset layouts (select-layout): a window's panes, in their order, rearranged into a named shape.
import { leaf, panesOf } from './layout.js';
import type { LayoutNode, PaneId } from './types.js';

/** In tmux's order, which `prefix Space` cycles through. */
export const LAYOUT_NAMES = ['even-horizontal', 'even-vertical', 'main-horizontal', 'main-vertical', 'tiled'] as const;
export type LayoutName = (typeof LAYOUT_NAMES)[number];

/** The main pane's share of the window in the main-* layouts (tmux sizes it in cells; a share keeps it on resize). */
export const MAIN_SHARE = 0.6;

/** Panes side by side (`row`) or stacked (`col`), each the same size: a chain whose ratios make every part equal. */
function even(panes: readonly PaneId[], axis: 'row' | 'col'): LayoutNode {
  if (panes.length === 1) return leaf(panes[0]);
  return { kind: 'split', axis, ratio: 1 / panes.length, a: leaf(panes[0]), b: even(panes.slice(1), axis) };
}

function main(panes: readonly PaneId[], axis: 'row' | 'col'): LayoutNode {
  if (panes.length === 1) return leaf(panes[0]);
  const rest = even(panes.slice(1), axis === 'row' ? 'col' : 'row');
  return { kind: 'split', axis, ratio: MAIN_SHARE, a: leaf(panes[0]), b: rest };
}

/** A grid as near square as it gets: rows of equal panes, a shorter last row widened (as tmux does). */
function tiled(panes: readonly PaneId[]): LayoutNode {
  const cols = Math.ceil(Math.sqrt(panes.length));
  const rows: PaneId[][] = [];
  for (let i = 0; i < panes.length; i += cols) rows.push(panes.slice(i, i + cols));
  const stack = (rs: PaneId[][]): LayoutNode =>
    rs.length === 1 ? even(rs[0], 'row') : { kind: 'split', axis: 'col', ratio: 1 / rs.length, a: even(rs[0], 'row'), b: stack(rs.slice(1)) };
  return stack(rows);
}

/** The window's panes, in the order they appear now, arranged as `name`; the first pane is the main one. */
export function presetLayout(name: LayoutName, tree: LayoutNode): LayoutNode {
  const panes = panesOf(tree);
  switch (name) {
    case 'even-horizontal':
      return even(panes, 'row');
    case 'even-vertical':
      return even(panes, 'col');
    case 'main-horizontal':
      return main(panes, 'col');
    case 'main-vertical':
      return main(panes, 'row');
    case 'tiled':
      return tiled(panes);
  }
}

/** The layout after (or before) `current` in the cycle; with none yet, the first. */
export function cycleLayout(current: LayoutName | undefined, step: 1 | -1): LayoutName {
  if (!current) return step === 1 ? LAYOUT_NAMES[0] : LAYOUT_NAMES[LAYOUT_NAMES.length - 1];
  const i = LAYOUT_NAMES.indexOf(current);
  return LAYOUT_NAMES[(i + step + LAYOUT_NAMES.length) % LAYOUT_NAMES.length];
}
