// Shared steps of the reducers: creating panes and windows, closing windows, moving focus.
import { shellCommand } from './shell-command.js';
import { initialAgentInfo } from './agent-state.js';
import { dropPane, putClient, putPane, putWindow } from './draft.js';
import { endSubHarness } from './episodes.js';
import { leaf, panesOf } from './layout.js';
import type { Draft } from './reducer.js';
import { areaForTerminal } from './select.js';
import type { EpisodeInfo, PaneId, PaneState, Size, WindowId, WindowState } from './types.js';

export interface NewPaneOpts {
  command?: string[];
  cwd?: string;
  name?: string;
  env?: Record<string, string>;
  parent?: PaneId;
  episode?: EpisodeInfo;
}

export function newPane(d: Draft, id: PaneId, window: WindowId, o: NewPaneOpts): PaneState {
  const p: PaneState = {
    id,
    window,
    name: o.name || undefined,
    command: o.command ? shellCommand(o.command, d.ctx.defaultCommand) : d.ctx.defaultCommand,
    cwd: o.cwd ?? d.ctx.defaultCwd,
    agent: initialAgentInfo(d.ctx.now),
    createdAt: d.ctx.now,
    env: o.env,
    parent: o.parent,
    ...(o.episode ? { episode: o.episode } : {}),
  };
  putPane(d, p);
  d.effects.push({ type: 'spawn', pane: id, command: p.command, cwd: p.cwd, env: p.env });
  d.events.push({ type: 'pane_created', pane: id, window, command: p.command, cwd: p.cwd, ...(o.parent ? { parent: o.parent } : {}) });
  return p;
}

/** Size a new window gets: its creating client's, else the largest attached client's, else the default. */
export function sizeForNewWindow(d: Draft): Size {
  const c = d.ctx.client ? d.state.clients[d.ctx.client] : undefined;
  if (c) return areaForTerminal(c.size);
  const sizes = Object.values(d.state.clients).map((x) => areaForTerminal(x.size));
  if (sizes.length) return sizes.reduce((a, b) => ({ cols: Math.min(a.cols, b.cols), rows: Math.min(a.rows, b.rows) }));
  return areaForTerminal(d.state.defaultSize);
}

export function createWindow(d: Draft, o: NewPaneOpts & { windowName?: string }): WindowState {
  const n = d.state.nextWindowNo;
  const id = `w${n}`;
  const paneId = `${id}:p1`;
  const w: WindowState = {
    id,
    index: d.state.windowOrder.length + 1,
    name: o.windowName || undefined,
    layout: leaf(paneId),
    active: paneId,
    nextPaneNo: 2,
    size: sizeForNewWindow(d),
  };
  d.state = { ...d.state, nextWindowNo: n + 1, windowOrder: [...d.state.windowOrder, id] };
  putWindow(d, w);
  d.events.push({ type: 'window_created', window: id, index: w.index, ...(w.name ? { name: w.name } : {}) });
  newPane(d, paneId, id, o);
  return w;
}

/** Keeps window indexes 1..N in bar order (tmux renumber-windows). */
export function renumber(d: Draft): void {
  const windows = { ...d.state.windows };
  d.state.windowOrder.forEach((id, i) => {
    if (windows[id].index !== i + 1) windows[id] = { ...windows[id], index: i + 1 };
  });
  d.state = { ...d.state, windows };
}

/** Shows window `to` to a client (or to every client and the server when the action has no client). */
export function showWindow(d: Draft, to: WindowId, client?: string): void {
  const ids = client ? [client] : Object.keys(d.state.clients);
  for (const cid of ids) {
    const c = d.state.clients[cid];
    if (!c || c.window === to) continue;
    putClient(d, { ...c, window: to, lastWindow: c.window });
  }
  if (!client || Object.keys(d.state.clients).length <= 1) d.state = { ...d.state, currentWindow: to };
}

/** Takes a window out of the session and the bar (renumbering the rest); its panes and viewers are the caller's to handle. */
export function unlistWindow(d: Draft, wid: WindowId): void {
  const windows = { ...d.state.windows };
  delete windows[wid];
  d.state = { ...d.state, windows, windowOrder: d.state.windowOrder.filter((x) => x !== wid) };
  d.events.push({ type: 'window_closed', window: wid });
  renumber(d);
}

/** Removes a window and its panes (killing their programs); clients looking at it move to a neighbour. */
export function closeWindow(d: Draft, wid: WindowId): void {
  const w = d.state.windows[wid];
  if (!w) return;
  const order = d.state.windowOrder;
  const pos = order.indexOf(wid);
  for (const pid of panesOf(w.layout)) {
    const p = d.state.panes[pid];
    if (p && !p.exited) endSubHarness(d, p, 'closed');
    if (!p?.exited) d.effects.push({ type: 'kill', pane: pid });
    dropPane(d, pid);
    d.events.push({ type: 'pane_closed', pane: pid, window: wid });
  }
  unlistWindow(d, wid);
  const { windows, windowOrder } = d.state;
  if (windowOrder.length === 0) {
    d.state = { ...d.state, currentWindow: undefined };
    d.effects.push({ type: 'shutdown', reason: 'last window closed' });
    return;
  }
  const fallback = windowOrder[Math.max(0, pos - 1)] ?? windowOrder[0];
  for (const c of Object.values(d.state.clients)) {
    if (c.window !== wid) continue;
    const to = c.lastWindow && windows[c.lastWindow] ? c.lastWindow : fallback;
    putClient(d, { ...c, window: to, lastWindow: undefined });
  }
  if (d.state.currentWindow === wid || !d.state.currentWindow) d.state = { ...d.state, currentWindow: fallback };
}

/** Makes `pane` the active pane of its window, with a focus_changed event. */
export function focusPane(d: Draft, w: WindowState, pane: PaneId): WindowState {
  if (w.active === pane) return w;
  const next: WindowState = { ...w, active: pane, lastActive: w.active };
  putWindow(d, next);
  d.events.push({ type: 'focus_changed', pane, window: w.id, previous: w.active, ...(d.ctx.client ? { client: d.ctx.client } : {}) });
  return next;
}
