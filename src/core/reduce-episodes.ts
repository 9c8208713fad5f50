// Recursive episodes: episode.start/end, and the sub-harness split (limits, inherited goal, placement beside the parent).
import type { AnyAction } from './actions.js';
import { putPane, putWindow } from './draft.js';
import { limitsOf, placeChild } from './episodes.js';
import type { Draft } from './reducer.js';
import { fail } from './reducer.js';
import { focusPane, newPane } from './reduce-common.js';
import { closeChildren, takePaneId, type SplitAction } from './reduce-panes.js';
import { childrenOf } from './select.js';
import { cleanName } from './text.js';
import type { PaneState, WindowState } from './types.js';

/** Opens a sub-harness pane of `parent`: it must be in a recursive episode, within limits.max_depth and limits.max_children. */
export function splitSubHarness(d: Draft, a: SplitAction, parent: PaneState, win: WindowState): void {
  const ep = parent.episode;
  if (parent.exited) return fail(d, 'not_allowed', `${parent.id} has exited; it cannot open sub-harness panes`);
  if (!ep?.rlm) {
    return fail(d, 'not_allowed', `${parent.id} is not in a recursive episode: start its agent with \`castellan run --rlm -- COMMAND\` to let it delegate`);
  }
  const lim = limitsOf(d);
  const depth = ep.depth + 1;
  if (depth > lim.maxDepth) {
    return fail(d, 'limit_exceeded', `${parent.id} is at depth ${ep.depth}: a sub-harness pane would be at depth ${depth} (limits.max_depth = ${lim.maxDepth})`);
  }
  const kids = childrenOf(d.state, parent.id);
  const live = kids.filter((k) => !k.exited).length;
  if (live >= lim.maxChildren) {
    return fail(d, 'limit_exceeded', `${parent.id} already has ${live} sub-harness pane${live === 1 ? '' : 's'} (limits.max_children = ${lim.maxChildren})`);
  }
  let w = win.zoomed ? { ...win, zoomed: undefined } : win;
  const taken = takePaneId(d, w, a.reserved);
  if (!taken) return;
  const layout = placeChild(w, parent.id, kids.map((k) => k.id), taken.id);
  if (!layout) return fail(d, 'no_space', `no space beside ${parent.id} for a sub-harness pane (window is ${w.size.cols}x${w.size.rows})`);
  w = { ...taken.w, layout };
  putWindow(d, w);
  const id = taken.id;
  const episode = { goalId: ep.goalId, depth, rlm: true };
  // The child's program learns its place in the tree (and carries the goal into its own tool calls and hooks).
  const env = { ...a.env, CASTELLAN_GOAL_ID: ep.goalId, CASTELLAN_PARENT_PANE: parent.id, CASTELLAN_DEPTH: String(depth) };
  newPane(d, id, w.id, { command: a.command, cwd: a.cwd ?? parent.cwd, name: a.name ? cleanName(a.name) : undefined, env, parent: parent.id, episode });
  d.events.push({ type: 'layout_changed', window: w.id });
  d.events.push({ type: 'sub_harness_created', pane: id, window: w.id, parent: parent.id, depth, goal_id: ep.goalId });
  if (!a.detached) focusPane(d, w, id);
  d.result = { pane: id, window: w.id, parent: parent.id, depth, goal_id: ep.goalId };
}

export function reduceEpisodeAction(d: Draft, a: AnyAction): void {
  switch (a.type) {
    case 'episode.start': {
      const p = d.state.panes[a.pane];
      if (!p) return fail(d, 'pane_not_found', `no pane ${a.pane}`);
      if (p.exited) return fail(d, 'not_allowed', `pane ${a.pane} has exited`);
      // A sub-harness pane stays where it is in its tree: same goal, same depth (a nested `run --rlm` cannot reset the depth).
      const sub = !!p.episode && p.episode.depth > 0;
      const episode = sub ? { ...p.episode!, rlm: true } : { goalId: a.goalId, depth: 0, rlm: a.rlm ?? true };
      putPane(d, { ...p, episode });
      d.result = { pane: p.id, goal_id: episode.goalId, depth: episode.depth, rlm: episode.rlm, sub_harness: sub, ...(p.parent ? { parent: p.parent } : {}) };
      return;
    }
    case 'episode.end': {
      const p = d.state.panes[a.pane];
      if (!p) return fail(d, 'pane_not_found', `no pane ${a.pane}`);
      const children = childrenOf(d.state, p.id).map((c) => c.id);
      const closed = closeChildren(d, p.id);
      const kept = children.filter((id) => !closed.includes(id));
      // A root's episode is over; a sub-harness pane keeps its place in its parent's tree.
      const cur = d.state.panes[p.id];
      if (cur?.episode && cur.episode.depth === 0) putPane(d, { ...cur, episode: undefined });
      d.result = { pane: p.id, closed, kept };
      return;
    }
    default:
      fail(d, 'invalid_params', `unknown episode action ${a.type}`);
  }
}
