// The view model a client draws its chrome from: pure function of State and the client's id.
import { rollup } from './agent-state.js';
import { panesOf } from './layout.js';
import { descendantsOf, focusedPanes, paneTitle, visibleRects, windowName, windowsInOrder } from './select.js';
import type { AgentState, PaneId, Rect, State } from './types.js';
import { AGENT_STATES } from './types.js';

export interface PaneView {
  id: string;
  title: string;
  /** Outer rect (border included), in window-area coordinates. */
  rect: Rect;
  focused: boolean;
  agent?: string;
  state: AgentState;
  stateSource?: string;
  /** What the agent last reported about its state ("needs permission to rm -rf"), while that state holds. */
  message?: string;
  exited?: { code: number | null; signal?: number | null };
  waiting: boolean;
  parent?: string;
  /** The pane's delegation tree below it (sub-harness panes, theirs too), rolled up for its border. */
  children?: ChildrenRollup;
  /** The agent's git worktree: branch and change summary. */
  worktree?: import('./types.js').PaneWorktree;
  /** Restored elsewhere: the directory it ran in was gone (PaneState.cwdGone). */
  cwdGone?: string;
}

export interface ChildrenRollup {
  /** Sub-harness panes below this one, running or not. */
  total: number;
  /** Those whose program still runs. */
  live: number;
  /** The state that most needs the user among the running ones (blocked > done > working > idle). */
  rollup?: AgentState;
  /** Running sub-harness panes per agent state. */
  counts: Record<AgentState, number>;
}

const zeroCounts = (): Record<AgentState, number> => Object.fromEntries(AGENT_STATES.map((s) => [s, 0])) as Record<AgentState, number>;

/** The roll-up of a pane's delegation tree, or undefined when it never delegated. */
export function childrenRollup(state: State, pane: PaneId): ChildrenRollup | undefined {
  const all = descendantsOf(state, pane);
  if (!all.length) return undefined;
  const live = all.filter((p) => !p.exited);
  const counts = zeroCounts();
  for (const p of live) counts[p.agent.state]++;
  const r = rollup(live.map((p) => p.agent.state));
  return { total: all.length, live: live.length, ...(r ? { rollup: r } : {}), counts };
}

export interface WindowTab {
  id: string;
  index: number;
  name: string;
  current: boolean;
  rollup?: AgentState;
  /** A pane in it that the user is not looking at became blocked or done. */
  alert: boolean;
  panes: number;
  zoomed: boolean;
  /** Typing goes to every pane of the window (synchronize-panes). */
  synchronized?: boolean;
}

export interface ViewModel {
  session: string;
  /** Set by a client on another machine (attach --machine, a hop): its bar names the session SESSION@MACHINE. */
  machine?: string;
  /** Size of the window area the server laid out (may be smaller than this client's terminal). */
  area: { cols: number; rows: number };
  windows: WindowTab[];
  window: { id: string; zoomed: boolean; panes: PaneView[] };
  /** Counts per agent state across the whole session, for the status bar roll-up. */
  counts: Record<AgentState, number>;
}

export function buildView(state: State, clientId: string): ViewModel | undefined {
  const client = state.clients[clientId];
  const wid = client?.window ?? state.currentWindow ?? state.windowOrder[0];
  const win = wid ? state.windows[wid] : undefined;
  if (!win) return undefined;
  const focused = focusedPanes(state);
  const rects = visibleRects(win);
  const panes: PaneView[] = [];
  for (const id of panesOf(win.layout)) {
    const r = rects.get(id);
    const p = state.panes[id];
    if (!r || !p) continue;
    const children = childrenRollup(state, id);
    panes.push({
      id,
      title: paneTitle(p),
      rect: r,
      focused: win.active === id,
      ...(p.agent.agent ? { agent: p.agent.agent } : {}),
      // A badge is a claim about an agent: a bare shell, `top` or `less` gets none, whatever the screen reads.
      state: p.agent.agent || p.agent.hook ? p.agent.state : 'unknown',
      ...(p.agent.source ? { stateSource: p.agent.source } : {}),
      ...(p.agent.message && (p.agent.agent || p.agent.hook) ? { message: p.agent.message } : {}),
      ...(p.exited ? { exited: { code: p.exited.code, signal: p.exited.signal } } : {}),
      waiting: !!p.agent.waitMark,
      ...(p.parent ? { parent: p.parent } : {}),
      ...(children ? { children } : {}),
      ...(p.worktree ? { worktree: p.worktree } : {}),
      ...(p.cwdGone ? { cwdGone: p.cwdGone } : {}),
    });
  }
  const counts = zeroCounts();
  // Roll-ups count agents only; shells get a badge in their border but do not crowd the bar.
  for (const p of Object.values(state.panes)) if (p.agent.agent) counts[p.agent.state]++;
  const windows: WindowTab[] = windowsInOrder(state).map((w) => {
    const ids = panesOf(w.layout);
    const states = ids.map((id) => (state.panes[id]?.agent.agent ? state.panes[id].agent.state : 'unknown'));
    return {
      id: w.id,
      index: w.index,
      name: windowName(state, w),
      current: w.id === win.id,
      rollup: rollup(states),
      alert: ids.some((id) => !focused.has(id) && !!state.panes[id]?.agent.agent && (state.panes[id].agent.state === 'blocked' || state.panes[id].agent.state === 'done')),
      panes: ids.length,
      zoomed: !!w.zoomed,
      synchronized: !!w.synchronized,
    };
  });
  return { session: state.session, area: { ...win.size }, windows, window: { id: win.id, zoomed: !!win.zoomed, panes }, counts };
}
