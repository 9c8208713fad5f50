// Pure helpers for recursive episodes: limits, who counts as a sub-harness, how a child's end is reported, where a child is placed.
import type { Draft } from './reducer.js';
import { computeRects, equalize, MIN_H, MIN_W, minSize, panesOf, splitPane } from './layout.js';
import { windowArea } from './select.js';
import type { EpisodeLimits, LayoutNode, PaneId, PaneState, WindowState } from './types.js';
import { DEFAULT_LIMITS } from './types.js';

export const limitsOf = (d: Draft): EpisodeLimits => d.ctx.limits ?? DEFAULT_LIMITS;

/** A pane opened by a delegate step (it has a parent and sits below an episode root). */
export const isSubHarness = (p: PaneState): boolean => !!p.parent && !!p.episode && p.episode.depth > 0;

/** How a program's end reads in SessionEnd payloads and sub_harness_ended events. */
export function exitStatus(code: number | null, signal?: number | null): 'ok' | 'failed' | 'killed' {
  if (signal) return 'killed';
  return code === 0 ? 'ok' : 'failed';
}

/** Reports a sub-harness pane's end once: when its program exits, or when it is closed while still running. */
export function endSubHarness(d: Draft, p: PaneState, status: string, code: number | null = null, signal: number | null = null): void {
  if (!isSubHarness(p)) return;
  d.events.push({
    type: 'sub_harness_ended',
    pane: p.id,
    window: p.window,
    parent: p.parent,
    depth: p.episode!.depth,
    goal_id: p.episode!.goalId,
    status,
    exit_code: code,
    ...(signal ? { signal } : {}),
  });
}

function fits(layout: LayoutNode, w: WindowState): boolean {
  const area = windowArea(w);
  const need = minSize(layout);
  if (area.w < need.w || area.h < need.h) return false;
  for (const r of computeRects(layout, area).values()) if (r.w < MIN_W || r.h < MIN_H) return false;
  return true;
}

/** Gives every pane of the subtree holding exactly `group` an even share (a column of children stays readable). */
function equalizeGroup(node: LayoutNode, group: Set<PaneId>): LayoutNode {
  const ids = panesOf(node);
  if (ids.length === group.size && ids.every((id) => group.has(id))) return equalize(node);
  if (node.kind === 'leaf') return node;
  const a = equalizeGroup(node.a, group);
  const b = equalizeGroup(node.b, group);
  return a === node.a && b === node.b ? node : { ...node, a, b };
}

/**
 * Where a new sub-harness pane goes: the first child to the right of its parent, later ones below the last child
 * (the children form one evenly divided column beside the parent). When that column is full, the parent is split
 * again. undefined: no room at all.
 */
export function placeChild(w: WindowState, parent: PaneId, children: PaneId[], child: PaneId): LayoutNode | undefined {
  const order = panesOf(w.layout);
  const kids = order.filter((id) => children.includes(id));
  if (kids.length) {
    const below = equalizeGroup(splitPane(w.layout, kids[kids.length - 1], child, 'down', 0.5), new Set([...kids, child]));
    if (fits(below, w)) return below;
  }
  const beside = splitPane(w.layout, parent, child, 'right', 0.5);
  return fits(beside, w) ? beside : undefined;
}
