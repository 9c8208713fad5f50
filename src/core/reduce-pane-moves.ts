// Moving panes between windows and rerunning them: tmux's break-pane, join-pane and respawn-pane.
import type { ActionOf } from './actions.js';
import { initialAgentInfo } from './agent-state.js';
import { putClient, putPane, putWindow } from './draft.js';
import { canSplit, leaf, panesOf, removePane, splitPane } from './layout.js';
import type { Draft } from './reducer.js';
import { fail } from './reducer.js';
import { focusPane, showWindow, sizeForNewWindow, unlistWindow } from './reduce-common.js';
import { targetPaneId, windowArea } from './select.js';
import { cleanName } from './text.js';
import type { PaneState, WindowState } from './types.js';

/**
 * Takes a pane out of its window's layout without ending it. A window left empty goes away, and whoever was
 * looking at it now looks at `heir` (the window the pane is going to).
 */
function detach(d: Draft, p: PaneState, heir: string): void {
  const w = d.state.windows[p.window];
  const layout = removePane(w.layout, p.id);
  if (!layout) {
    unlistWindow(d, w.id);
    if (d.state.currentWindow === w.id) d.state = { ...d.state, currentWindow: heir };
    for (const c of Object.values(d.state.clients)) {
      if (c.window === w.id) putClient(d, { ...c, window: heir, lastWindow: undefined });
      else if (c.lastWindow === w.id) putClient(d, { ...c, lastWindow: undefined });
    }
    return;
  }
  const left = panesOf(layout);
  const active = w.active !== p.id ? w.active : w.lastActive && left.includes(w.lastActive) ? w.lastActive : left[0];
  putWindow(d, { ...w, layout, active, lastActive: w.lastActive === p.id ? undefined : w.lastActive, zoomed: w.zoomed === p.id ? undefined : w.zoomed });
  d.events.push({ type: 'layout_changed', window: w.id });
}

function resolvePane(d: Draft, id: string | undefined): PaneState | undefined {
  const pid = targetPaneId(d.state, d.ctx.client, id);
  const p = pid ? d.state.panes[pid] : undefined;
  if (!p) fail(d, 'pane_not_found', id ? `no pane ${id}` : 'no pane to act on');
  return p;
}

export function breakPane(d: Draft, a: ActionOf<'pane.break'>): void {
  const p = resolvePane(d, a.pane);
  if (!p) return;
  const from = d.state.windows[p.window];
  if (panesOf(from.layout).length === 1) return fail(d, 'not_allowed', `${p.id} is already alone in its window`);
  const n = d.state.nextWindowNo;
  detach(d, p, `w${n}`);
  const w: WindowState = { id: `w${n}`, index: d.state.windowOrder.length + 1, name: a.name ? cleanName(a.name) || undefined : undefined, layout: leaf(p.id), active: p.id, nextPaneNo: 1, size: sizeForNewWindow(d) };
  d.state = { ...d.state, nextWindowNo: n + 1, windowOrder: [...d.state.windowOrder, w.id] };
  putWindow(d, w);
  putPane(d, { ...p, window: w.id });
  d.events.push({ type: 'window_created', window: w.id, index: w.index, ...(w.name ? { name: w.name } : {}) });
  d.events.push({ type: 'pane_moved', pane: p.id, from: from.id, to: w.id });
  if (!a.detached) showWindow(d, w.id, d.ctx.client);
  d.result = { pane: p.id, window: w.id };
}

export function joinPane(d: Draft, a: ActionOf<'pane.join'>): void {
  const src = resolvePane(d, a.pane);
  if (!src) return;
  const dst = resolvePane(d, a.target);
  if (!dst) return;
  if (src.id === dst.id) return fail(d, 'invalid_params', 'a pane cannot join itself');
  const direction = a.direction ?? 'right';
  const target = d.state.windows[dst.window];
  const from = src.window;
  // The source leaves first (it may be in the target's window: join then only moves it).
  const base = src.window === dst.window ? removePane(target.layout, src.id)! : target.layout;
  const trial = { ...target, layout: base };
  if (!canSplit(trial.layout, windowArea(trial), dst.id, direction)) return fail(d, 'no_space', `no space to put ${src.id} ${direction} of ${dst.id}`);
  detach(d, src, dst.window);
  const w = d.state.windows[dst.window];
  const joined: WindowState = { ...w, layout: splitPane(w.layout, dst.id, src.id, direction), zoomed: undefined };
  putWindow(d, joined);
  putPane(d, { ...d.state.panes[src.id], window: w.id });
  d.events.push({ type: 'layout_changed', window: w.id });
  if (from !== w.id) d.events.push({ type: 'pane_moved', pane: src.id, from, to: w.id });
  if (!a.detached) {
    focusPane(d, joined, src.id);
    showWindow(d, w.id, d.ctx.client);
  }
  d.result = { pane: src.id, window: w.id };
}

export function respawnPane(d: Draft, a: ActionOf<'pane.respawn'>): void {
  const p = resolvePane(d, a.pane);
  if (!p) return;
  if (!p.exited && !a.kill) return fail(d, 'not_allowed', `${p.id} is still running (kill: true ends it first)`);
  // The old program's runtime goes (kill disposes it; an exit it reports later is ignored), then a fresh one.
  d.effects.push({ type: 'kill', pane: p.id });
  const next: PaneState = { ...p, exited: undefined, agent: initialAgentInfo(d.ctx.now), foreground: undefined, programTitle: undefined };
  putPane(d, next);
  d.effects.push({ type: 'spawn', pane: p.id, command: p.command, cwd: p.cwd, env: p.env });
  d.events.push({ type: 'pane_respawned', pane: p.id, command: p.command, cwd: p.cwd });
  d.result = { pane: p.id };
}
