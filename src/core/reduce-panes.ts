// Pane actions: split, close, focus, resize, zoom, swap, rename, and the runtime's exit/title reports.
import type { ActionOf, AnyAction } from './actions.js';
import { agentExited } from './agent-state.js';
import { dropPane, putPane, putWindow } from './draft.js';
import { endSubHarness, exitStatus, isSubHarness, limitsOf } from './episodes.js';
import { canSplit, neighbor, panesOf, removePane, resizeBetween, resizePane, splitPane, swapPanes } from './layout.js';
import type { Draft } from './reducer.js';
import { fail } from './reducer.js';
import { closeWindow, focusPane, newPane, showWindow } from './reduce-common.js';
import { splitSubHarness } from './reduce-episodes.js';
import { breakPane, joinPane, respawnPane } from './reduce-pane-moves.js';
import { childrenOf, targetPaneId, windowArea } from './select.js';
import { cleanName } from './text.js';
import type { PaneState, WindowState } from './types.js';

const SHELLS = new Set(['sh', 'bash', 'zsh', 'fish', 'dash', 'ksh', 'mksh', 'tcsh', 'csh', 'nu', 'xonsh', 'elvish', 'pwsh']);

function resolve(d: Draft, pane?: string): { p: PaneState; w: WindowState } | undefined {
  const id = targetPaneId(d.state, d.ctx.client, pane);
  const p = id ? d.state.panes[id] : undefined;
  const w = p ? d.state.windows[p.window] : undefined;
  if (!p || !w) {
    fail(d, 'pane_not_found', pane ? `no pane ${pane}` : 'no pane to act on');
    return undefined;
  }
  return { p, w };
}

export type SplitAction = ActionOf<'pane.split'> & { reserved?: string };

/** The new pane's id: a number reserved earlier (pane.reserve, used once), else the window's next one. */
export function takePaneId(d: Draft, w: WindowState, reserved?: string): { id: string; w: WindowState } | undefined {
  if (!reserved) return { id: `${w.id}:p${w.nextPaneNo}`, w: { ...w, nextPaneNo: w.nextPaneNo + 1 } };
  const n = Number(reserved.slice(reserved.indexOf(':p') + 2));
  if (!reserved.startsWith(`${w.id}:p`) || !w.reserved?.includes(n) || d.state.panes[reserved]) {
    fail(d, 'invalid_params', `${reserved} is not a pane id reserved in ${w.id}`);
    return undefined;
  }
  return { id: reserved, w: { ...w, reserved: w.reserved.filter((x) => x !== n) } };
}

function split(d: Draft, a: SplitAction): void {
  const t = resolve(d, a.pane);
  if (!t) return;
  if (a.subHarness) return splitSubHarness(d, a, t.p, t.w);
  let { w } = t;
  if (w.zoomed) w = { ...w, zoomed: undefined };
  const direction = a.direction ?? 'right';
  if (!canSplit(w.layout, windowArea(w), t.p.id, direction)) {
    fail(d, 'no_space', `no space to split ${t.p.id} ${direction} (window is ${w.size.cols}x${w.size.rows})`);
    return;
  }
  const taken = takePaneId(d, w, a.reserved);
  if (!taken) return;
  const id = taken.id;
  const layout = splitPane(w.layout, t.p.id, id, direction, a.percent ? a.percent / 100 : 0.5);
  w = { ...taken.w, layout };
  putWindow(d, w);
  newPane(d, id, w.id, { command: a.command, cwd: a.cwd ?? t.p.cwd, name: a.name ? cleanName(a.name) : undefined, env: a.env, parent: a.parent });
  d.events.push({ type: 'layout_changed', window: w.id });
  if (!a.detached) focusPane(d, w, id);
  d.result = { pane: id, window: w.id };
}

/** A pane's sub-harness children (and theirs) are closed with it, unless config keeps them (limits.keep_children). */
export function closeChildren(d: Draft, parent: string): string[] {
  if (limitsOf(d).keepChildren) return [];
  const closed: string[] = [];
  for (const c of childrenOf(d.state, parent)) {
    const p = d.state.panes[c.id];
    const w = p ? d.state.windows[p.window] : undefined;
    if (!p || !w) continue;
    closed.push(p.id);
    closePane(d, p, w);
  }
  return closed;
}

/** Removes a pane from its window (its sub-harness children first); the last pane takes its window with it. */
export function closePane(d: Draft, p: PaneState, w: WindowState): void {
  closeChildren(d, p.id);
  w = d.state.windows[w.id] ?? w;
  p = d.state.panes[p.id] ?? p;
  const layout = removePane(w.layout, p.id);
  if (!layout) {
    closeWindow(d, w.id);
    return;
  }
  if (!p.exited) endSubHarness(d, p, 'closed');
  if (!p.exited) d.effects.push({ type: 'kill', pane: p.id });
  dropPane(d, p.id);
  d.events.push({ type: 'pane_closed', pane: p.id, window: w.id });
  const remaining = panesOf(layout);
  let next: WindowState = { ...w, layout, zoomed: w.zoomed === p.id ? undefined : w.zoomed };
  if (next.lastActive === p.id) next.lastActive = undefined;
  putWindow(d, next);
  if (w.active === p.id) {
    const to = w.lastActive && remaining.includes(w.lastActive) ? w.lastActive : remaining[0];
    next = { ...next, active: to, lastActive: undefined };
    putWindow(d, next);
    d.events.push({ type: 'focus_changed', pane: to, window: w.id, previous: p.id });
  }
  d.events.push({ type: 'layout_changed', window: w.id });
}

function focus(d: Draft, a: ActionOf<'pane.focus'>): void {
  const t = resolve(d, a.pane);
  if (!t) return;
  let { w } = t;
  let to = t.p.id;
  if (a.direction) {
    to = neighbor(w.layout, windowArea(w), t.p.id, a.direction) ?? t.p.id;
  } else if (a.cycle === 'last') {
    to = w.lastActive && d.state.panes[w.lastActive] ? w.lastActive : t.p.id;
  } else if (a.cycle) {
    const order = panesOf(w.layout);
    const i = order.indexOf(t.p.id);
    to = order[(i + (a.cycle === 'next' ? 1 : order.length - 1)) % order.length];
  }
  // Focusing a pane by id (API/CLI) also brings its window to the front.
  if (a.pane && !a.direction && !a.cycle) showWindow(d, w.id, d.ctx.client);
  if (w.zoomed && to !== w.zoomed) {
    w = { ...w, zoomed: undefined };
    putWindow(d, w);
    d.events.push({ type: 'layout_changed', window: w.id });
  }
  focusPane(d, w, to);
}

function resize(d: Draft, a: ActionOf<'pane.resize'>): void {
  const t = resolve(d, a.pane);
  if (!t) return;
  const layout = a.across
    ? resizeBetween(t.w.layout, windowArea(t.w), t.p.id, a.across, a.direction, a.cells ?? 1)
    : resizePane(t.w.layout, windowArea(t.w), t.p.id, a.direction, a.cells ?? 1);
  if (layout === t.w.layout) return;
  putWindow(d, { ...t.w, layout });
  d.events.push({ type: 'layout_changed', window: t.w.id });
}

function zoom(d: Draft, a: ActionOf<'pane.zoom'>): void {
  const t = resolve(d, a.pane);
  if (!t) return;
  const mode = a.mode ?? 'toggle';
  const on = mode === 'toggle' ? t.w.zoomed !== t.p.id : mode === 'on';
  if (on && panesOf(t.w.layout).length < 2) return;
  const w = { ...t.w, zoomed: on ? t.p.id : undefined, active: t.p.id };
  putWindow(d, w);
  d.events.push({ type: 'layout_changed', window: w.id });
}

function swap(d: Draft, a: ActionOf<'pane.swap'>): void {
  const t = resolve(d, a.pane);
  if (!t) return;
  const order = panesOf(t.w.layout);
  let other: string | null = null;
  const w = a.with ?? 'next';
  if (w === 'next' || w === 'prev') {
    if (order.length < 2) return;
    const i = order.indexOf(t.p.id);
    other = order[(i + (w === 'next' ? 1 : order.length - 1)) % order.length];
  } else if (w === 'left' || w === 'right' || w === 'up' || w === 'down') {
    other = neighbor(t.w.layout, windowArea(t.w), t.p.id, w);
  } else {
    other = w;
    if (!order.includes(other)) {
      fail(d, d.state.panes[other] ? 'not_allowed' : 'pane_not_found', d.state.panes[other] ? `${other} is in another window` : `no pane ${other}`);
      return;
    }
  }
  if (!other || other === t.p.id) return;
  putWindow(d, { ...t.w, layout: swapPanes(t.w.layout, t.p.id, other), zoomed: undefined });
  d.events.push({ type: 'layout_changed', window: t.w.id });
}

export function reducePaneAction(d: Draft, a: AnyAction): void {
  switch (a.type) {
    case 'pane.split':
      return split(d, a);
    case 'pane.close': {
      const t = resolve(d, a.pane);
      if (t) closePane(d, t.p, t.w);
      return;
    }
    case 'pane.focus':
      return focus(d, a);
    case 'pane.resize':
      return resize(d, a);
    case 'pane.zoom':
      return zoom(d, a);
    case 'pane.swap':
      return swap(d, a);
    case 'pane.break':
      return breakPane(d, a);
    case 'pane.join':
      return joinPane(d, a);
    case 'pane.respawn':
      return respawnPane(d, a);
    case 'pane.rename': {
      const t = resolve(d, a.pane);
      if (!t) return;
      const name = cleanName(a.name);
      putPane(d, { ...t.p, name: name || undefined });
      d.events.push({ type: 'pane_renamed', pane: t.p.id, name });
      return;
    }
    case 'pane.exited': {
      const p = d.state.panes[a.pane];
      if (!p || p.exited) return;
      const ch = agentExited(p.agent, d.ctx.now);
      putPane(d, { ...p, exited: { code: a.code, signal: a.signal ?? null, at: d.ctx.now }, agent: ch.info });
      d.events.push({ type: 'pane_exited', pane: p.id, window: p.window, code: a.code, signal: a.signal ?? null });
      if (ch.changed) d.events.push({ type: 'pane_agent_status_changed', pane: p.id, agent: ch.info.agent, old: ch.old, new: ch.info.state });
      if (isSubHarness(p)) endSubHarness(d, p, exitStatus(a.code, a.signal), a.code, a.signal ?? null);
      // The delegating program is gone: so is its tree (unless limits.keep_children).
      closeChildren(d, p.id);
      const w = d.state.windows[p.window];
      if (a.close && w && !isSubHarness(p)) closePane(d, d.state.panes[p.id] ?? p, w);
      return;
    }
    case 'pane.reserve': {
      const w = d.state.windows[a.window];
      if (!w) return fail(d, 'window_not_found', `no window ${a.window}`);
      putWindow(d, { ...w, nextPaneNo: w.nextPaneNo + 1, reserved: [...(w.reserved ?? []), w.nextPaneNo] });
      d.result = { pane: `${w.id}:p${w.nextPaneNo}`, window: w.id };
      return;
    }
    case 'pane.unreserve': {
      const w = d.state.windows[a.pane.slice(0, a.pane.indexOf(':'))];
      const n = Number(a.pane.slice(a.pane.indexOf(':p') + 2));
      if (w?.reserved?.includes(n)) putWindow(d, { ...w, reserved: w.reserved.filter((x) => x !== n) });
      return;
    }
    case 'pane.foreground': {
      const p = d.state.panes[a.pane];
      if (!p) return;
      const name = cleanName(a.name, 64);
      // A shell in the foreground means the pane is at its prompt: the title or command names it then, as before.
      const base = (p.command[0] ?? '').split('/').pop();
      const fg = name && name !== base && !SHELLS.has(name.replace(/^-/, '')) ? name : undefined;
      if (fg !== p.foreground) putPane(d, { ...p, foreground: fg });
      return;
    }
    case 'pane.title': {
      const p = d.state.panes[a.pane];
      if (!p) return;
      const title = cleanName(a.title);
      if (title !== (p.programTitle ?? '')) putPane(d, { ...p, programTitle: title || undefined });
      return;
    }
    case 'pane.worktree': {
      const p = d.state.panes[a.pane];
      if (p) putPane(d, { ...p, worktree: a.worktree });
      return;
    }
    default:
      fail(d, 'invalid_params', `unknown pane action ${a.type}`);
  }
}
