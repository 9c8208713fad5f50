// The matching engine behind events.wait and `castellan herd wait`: state waits that can be trusted.
import type { StampedEvent } from '../core/events.js';
import type { AgentState, State } from '../core/types.js';
import type { Connection, SessionApi } from './context.js';
import { ApiError } from './protocol.js';

export interface WaitSpec {
  types?: string[];
  panes?: string[];
  states?: AgentState[];
  mode: 'any' | 'all';
  timeoutMs: number;
  /** Match the panes' current agent state at once (default), instead of only future changes. */
  current: boolean;
}

export interface WaitResult {
  event: StampedEvent | Record<string, unknown>;
  matched: string[];
  states: Record<string, AgentState>;
}

const GONE = new Set(['pane_closed', 'pane_exited']);

/**
 * Which watched panes are in one of the wanted states. `done` is an idle agent whose finished turn nobody has
 * looked at yet, so a wait for `idle` accepts it; a wait for `done` accepts a pane whose turn ended during the
 * wait (`ended`) even if someone saw it at once and it is idle now.
 */
export function matching(state: State, panes: string[], states: AgentState[], ended: ReadonlySet<string> = new Set()): string[] {
  const ok = (s: AgentState) => states.includes(s) || (s === 'done' && states.includes('idle'));
  return panes.filter((id) => {
    const p = state.panes[id];
    return p && !p.exited && (ok(p.agent.state) || (states.includes('done') && ended.has(id)));
  });
}

function snapshotStates(state: State, panes: string[]): Record<string, AgentState> {
  return Object.fromEntries(panes.filter((id) => state.panes[id]).map((id) => [id, state.panes[id].agent.state]));
}

export function waitFor(session: SessionApi, conn: Connection | undefined, spec: WaitSpec): Promise<WaitResult> {
  const stateWait = !!spec.states?.length;
  const panes = spec.panes ?? [];
  if (stateWait && panes.length === 0) throw new ApiError('invalid_params', 'a state wait needs at least one pane');
  const initial = session.state();
  for (const id of panes) {
    if (!initial.panes[id]) throw new ApiError('pane_gone', `no pane ${id}`, { pane_id: id });
    if (stateWait && initial.panes[id].exited) throw new ApiError('pane_gone', `pane ${id} has exited`, { pane_id: id });
  }
  if (stateWait && spec.current) {
    const m = matching(initial, panes, spec.states!);
    if (spec.mode === 'any' ? m.length > 0 : m.length === panes.length) {
      const p = m[0];
      return Promise.resolve({
        event: { type: 'pane_agent_status_changed', pane: p, agent: initial.panes[p].agent.agent, new: initial.panes[p].agent.state, current: true },
        matched: m,
        states: snapshotStates(initial, panes),
      });
    }
  }
  return new Promise<WaitResult>((resolve, reject) => {
    let done = false;
    const finish = (fn: () => void) => {
      if (done) return;
      done = true;
      off();
      clearTimeout(timer);
      fn();
    };
    const types = stateWait ? ['pane_agent_status_changed', 'pane_agent_turn_ended', 'pane_closed', 'pane_exited'] : spec.types;
    // Panes whose turn ended since the wait began (a new turn starting takes them out again).
    const ended = new Set<string>();
    const off = session.subscribe({ types, panes: panes.length ? panes : undefined }, (e) => {
      const ev = e as StampedEvent & { pane?: string; new?: AgentState };
      if (stateWait) {
        if (ev.pane && GONE.has(ev.type)) {
          finish(() => reject(new ApiError('pane_gone', `pane ${ev.pane} ${ev.type === 'pane_closed' ? 'was closed' : 'exited'} while waiting`, { pane_id: ev.pane, event: ev })));
          return;
        }
        if (ev.pane && ev.type === 'pane_agent_turn_ended') ended.add(ev.pane);
        if (ev.pane && (ev.new === 'working' || ev.new === 'blocked')) ended.delete(ev.pane);
        const st = session.state();
        const m = matching(st, panes, spec.states!, ended);
        if (spec.mode === 'any' ? m.length > 0 : m.length === panes.length) {
          finish(() => resolve({ event: ev, matched: m, states: snapshotStates(st, panes) }));
        }
        return;
      }
      finish(() => resolve({ event: ev, matched: ev.pane ? [ev.pane] : [], states: {} }));
    });
    const timer = setTimeout(() => {
      finish(() => reject(new ApiError('timeout', `no matching event within ${spec.timeoutMs} ms`, { states: snapshotStates(session.state(), panes) })));
    }, spec.timeoutMs);
    conn?.onClose(() => finish(() => reject(new ApiError('shutting_down', 'connection closed'))));
  });
}
