// Read-only queries over State: targets, window areas, pane geometry, what each client sees.
import { computeRects, innerRect, panesOf } from './layout.js';
import type { AgentState, ClientId, PaneId, PaneState, Rect, Size, State, WindowId, WindowState } from './types.js';
import { STATUS_BAR_ROWS } from './types.js';

export const windowArea = (w: WindowState): Rect => ({ x: 0, y: 0, w: w.size.cols, h: w.size.rows });

/** Area of the window given a client's terminal size (one row goes to the status bar). */
export const areaForTerminal = (size: Size): Size => ({ cols: Math.max(1, size.cols), rows: Math.max(1, size.rows - STATUS_BAR_ROWS) });

export function windowsInOrder(state: State): WindowState[] {
  return state.windowOrder.map((id) => state.windows[id]).filter(Boolean);
}

/** The window an action acts on: the client's, else the server's current one. */
export function targetWindowId(state: State, client?: ClientId): WindowId | undefined {
  const c = client ? state.clients[client] : undefined;
  if (c && state.windows[c.window]) return c.window;
  if (state.currentWindow && state.windows[state.currentWindow]) return state.currentWindow;
  return state.windowOrder[0];
}

export function targetPaneId(state: State, client: ClientId | undefined, pane?: PaneId): PaneId | undefined {
  if (pane) return state.panes[pane] ? pane : undefined;
  const w = targetWindowId(state, client);
  return w ? state.windows[w]?.active : undefined;
}

/** Outer rects of the panes shown in a window (only the zoomed pane when zoomed). */
/** The panes besides the active one that typing reaches: all of a synchronized window's (tmux synchronize-panes). */
export function syncedPanes(w: WindowState): PaneId[] {
  return w.synchronized ? panesOf(w.layout).filter((id) => id !== w.active) : [];
}

export function visibleRects(w: WindowState): Map<PaneId, Rect> {
  const area = windowArea(w);
  if (w.zoomed) return new Map([[w.zoomed, area]]);
  return computeRects(w.layout, area);
}

/** The pty size every pane should have: hidden panes of a zoomed window keep their unzoomed size. */
export function paneSizes(state: State): Map<PaneId, Size> {
  const out = new Map<PaneId, Size>();
  for (const w of Object.values(state.windows)) {
    const rects = computeRects(w.layout, windowArea(w));
    if (w.zoomed) rects.set(w.zoomed, windowArea(w));
    for (const [id, r] of rects) {
      const inner = innerRect(r);
      out.set(id, { cols: inner.w, rows: inner.h });
    }
  }
  return out;
}

/** Panes that some attached client is looking at (the active pane of each client's window). */
export function focusedPanes(state: State): Set<PaneId> {
  const out = new Set<PaneId>();
  for (const c of Object.values(state.clients)) {
    const w = state.windows[c.window];
    if (w) out.add(w.active);
  }
  return out;
}

/**
 * "Needs me": an agent is blocked (waiting on a permission or a question), or it finished a turn nobody has
 * looked at yet — castellan holds `done` only until the pane is seen (then it reads `idle`), so `done` is unread.
 */
export function needsMe(p: { state: AgentState; exited?: unknown }): boolean {
  return !p.exited && (p.state === 'blocked' || p.state === 'done');
}

export function paneTitle(p: PaneState): string {
  if (p.name) return p.name;
  if (p.programTitle) return p.programTitle;
  if (p.foreground) return p.foreground;
  const cmd = p.command[0] ?? '';
  return cmd.split('/').pop() ?? cmd;
}

export function windowName(state: State, w: WindowState): string {
  if (w.name) return w.name;
  const p = state.panes[w.active];
  // As tmux's automatic-rename: the running command names the window (many shells set a title that would hide it).
  return p ? (p.name ?? p.foreground ?? paneTitle(p)) : w.id;
}

/** Sub-harness panes opened from `pane` (its direct children), in creation order. */
export function childrenOf(state: State, pane: PaneId): PaneState[] {
  return Object.values(state.panes)
    .filter((p) => p.parent === pane)
    .sort((a, b) => a.createdAt - b.createdAt || paneNo(a.id) - paneNo(b.id));
}

/** Every pane below `pane` in its delegation tree (children, their children, ...). */
export function descendantsOf(state: State, pane: PaneId): PaneState[] {
  const out: PaneState[] = [];
  const seen = new Set<PaneId>([pane]);
  const walk = (id: PaneId) => {
    for (const c of childrenOf(state, id)) {
      if (seen.has(c.id)) continue;
      seen.add(c.id);
      out.push(c);
      walk(c.id);
    }
  };
  walk(pane);
  return out;
}

const paneNo = (id: PaneId): number => Number(id.slice(id.lastIndexOf('p') + 1)) || 0;
