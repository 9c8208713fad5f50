// The pure reducer: reduce(state, action, ctx) → {state, events, effects}; the only way state changes.
import type { ActionContext, AnyAction } from './actions.js';
import { markSeen } from './agent-state.js';
import type { Effect } from './effects.js';
import type { CastellanEvent } from './events.js';
import { reducePaneAction } from './reduce-panes.js';
import { reduceWindowAction } from './reduce-windows.js';
import { reduceAgentAction } from './reduce-agents.js';
import { reduceEpisodeAction } from './reduce-episodes.js';
import { areaForTerminal, focusedPanes } from './select.js';
import type { Size, State } from './types.js';

export type ErrorCode = 'pane_not_found' | 'window_not_found' | 'no_space' | 'invalid_params' | 'not_allowed' | 'limit_exceeded';

export interface ReduceResult {
  state: State;
  events: CastellanEvent[];
  effects: Effect[];
  error?: { code: ErrorCode; message: string };
  /** Method-specific answer, e.g. the id of a new pane. */
  result?: Record<string, unknown>;
}

/** A mutable draft passed to the per-area reducers: they replace fields of `state` immutably and push events/effects. */
export interface Draft {
  state: State;
  events: CastellanEvent[];
  effects: Effect[];
  ctx: ActionContext;
  error?: ReduceResult['error'];
  result?: Record<string, unknown>;
}

export function emptyState(session: string, defaultSize: Size = { cols: 80, rows: 24 }): State {
  return { session, windows: {}, windowOrder: [], panes: {}, clients: {}, nextWindowNo: 1, defaultSize };
}

export function fail(d: Draft, code: ErrorCode, message: string): void {
  d.error = { code, message };
}

export function reduce(state: State, action: AnyAction, ctx: ActionContext): ReduceResult {
  const d: Draft = { state, events: [], effects: [], ctx };
  if (action.type.startsWith('agent.')) reduceAgentAction(d, action);
  else if (action.type.startsWith('pane.')) reducePaneAction(d, action);
  else if (action.type.startsWith('episode.')) reduceEpisodeAction(d, action);
  else reduceWindowAction(d, action);
  if (d.error) return { state, events: [], effects: [], error: d.error };
  finalize(d);
  return { state: d.state, events: d.events, effects: d.effects, result: d.result };
}

/** Size of each window by the "smallest client viewing it" policy; unviewed windows keep theirs. */
function recomputeSizes(d: Draft): void {
  const s = d.state;
  let windows = s.windows;
  for (const w of Object.values(s.windows)) {
    const viewers = Object.values(s.clients).filter((c) => c.window === w.id);
    if (viewers.length === 0) continue;
    const size = viewers.map((c) => areaForTerminal(c.size)).reduce((a, b) => ({ cols: Math.min(a.cols, b.cols), rows: Math.min(a.rows, b.rows) }));
    if (size.cols !== w.size.cols || size.rows !== w.size.rows) {
      if (windows === s.windows) windows = { ...s.windows };
      windows[w.id] = { ...w, size };
    }
  }
  if (windows !== s.windows) d.state = { ...s, windows };
}

/** Panes someone is looking at lose `done` (the user has now seen the finished turn). */
function markFocusedSeen(d: Draft): void {
  let panes = d.state.panes;
  for (const id of focusedPanes(d.state)) {
    const p = panes[id];
    if (!p || p.agent.state !== 'done') continue;
    const ch = markSeen(p.agent, d.ctx.now);
    if (!ch.changed) continue;
    if (panes === d.state.panes) panes = { ...panes };
    panes[id] = { ...p, agent: ch.info };
    d.events.push({ type: 'pane_agent_status_changed', pane: id, agent: ch.info.agent, old: ch.old, new: ch.info.state, source: 'user' });
  }
  if (panes !== d.state.panes) d.state = { ...d.state, panes };
}

function finalize(d: Draft): void {
  recomputeSizes(d);
  markFocusedSeen(d);
}
