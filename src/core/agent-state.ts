// Arbitration of a pane's agent badge: hook reports outrank heuristics, seq ordering, done→idle when seen.
import type { AgentInfo, AgentReport, AgentSource, AgentState } from './types.js';

export const initialAgentInfo = (now: number): AgentInfo => ({ state: 'unknown', since: now });

export interface AgentChange {
  info: AgentInfo;
  changed: boolean;
  old: AgentState;
  /** Why a report was ignored (stale seq, heuristics outranked), for `herd explain` and tests. */
  ignored?: string;
}

/** `done` is a finished turn the user has not looked at: a pane someone is looking at goes straight to idle. */
function seen(state: AgentState, focused: boolean): AgentState {
  return state === 'done' && focused ? 'idle' : state;
}

function setState(info: AgentInfo, state: AgentState, source: AgentSource | undefined, now: number, agent?: string, message?: string): AgentChange {
  const old = info.state;
  const next: AgentInfo = { ...info, agent: agent ?? info.agent, state, source, message, since: state === old ? info.since : now };
  const changed = state !== old || next.agent !== info.agent;
  return { info: next, changed, old };
}

/** A report from an agent's hook bridge, the CLI or the API. */
export function applyReport(info: AgentInfo, report: AgentReport, focused: boolean): AgentChange {
  if (report.seq !== undefined && info.lastSeq !== undefined && report.seq < info.lastSeq) {
    return { info, changed: false, old: info.state, ignored: `stale seq ${report.seq} < ${info.lastSeq}` };
  }
  const base: AgentInfo = { ...info, lastSeq: report.seq ?? info.lastSeq };
  if (report.source === 'hook') base.hook = report;
  // "idle" (e.g. an agent's idle reminder a minute after its turn) never erases a finished turn nobody has seen.
  const state = report.state === 'idle' && info.state === 'done' && !focused ? 'done' : report.state;
  return setState(base, seen(state, focused), report.source, report.at, report.agent, report.message);
}

/** A screen-heuristics reading; ignored while a hook report holds the pane (until reset or exit). */
export function applyDetection(
  info: AgentInfo,
  reading: { agent?: string | null; state: AgentState; rule?: string; at: number },
  focused: boolean,
  opts: { overrideHook?: boolean } = {},
): AgentChange {
  // agent null: the program that named the pane is gone (a generic-read program exited to its shell): no name now.
  const { agent: named, ...rest } = reading;
  const base: AgentInfo = { ...info, heuristic: named ? { ...rest, agent: named } : rest, ...(named === null && !info.hook ? { agent: undefined } : {}) };
  if (info.hook && !opts.overrideHook) return { info: base, changed: false, old: info.state, ignored: 'hook report outranks heuristics' };
  // A finished turn (working -> idle) the user has not seen is "done", as with hooks.
  let state = reading.state;
  if (state === 'idle' && (info.state === 'working' || info.state === 'done') && !focused) state = 'done';
  if (state === 'idle' && info.state === 'done') state = focused ? 'idle' : 'done';
  const after = opts.overrideHook ? { ...base, hook: undefined } : base;
  return setState(after, seen(state, focused), 'heuristic', reading.at, named ?? after.agent, undefined);
}

/** Forget hook reports (the reset key, `herd reset`, `pane.reset_agent`): back to heuristics. */
export function resetAgent(info: AgentInfo, now: number): AgentChange {
  const h = info.heuristic;
  const base: AgentInfo = { ...info, hook: undefined, lastSeq: undefined, waitMark: info.waitMark };
  return setState(base, h ? h.state : 'unknown', h ? 'heuristic' : undefined, now, h?.agent, undefined);
}

/** The pane's program exited: whatever ran there is gone. */
export function agentExited(info: AgentInfo, now: number): AgentChange {
  const r = setState({ ...info, hook: undefined, lastSeq: undefined, heuristic: undefined, waitMark: false }, 'unknown', undefined, now, info.agent);
  return r;
}

/** The pane became visible/focused to a user. */
export function markSeen(info: AgentInfo, now: number): AgentChange {
  if (info.state !== 'done') return { info, changed: false, old: info.state };
  // The message described the state that just ended ("finished: fixed the bug"); it goes with it.
  return setState(info, 'idle', 'user', now, info.agent, undefined);
}

/** Roll-up order for bars: what needs the user most comes first. */
export const STATE_PRIORITY: Record<AgentState, number> = { blocked: 0, done: 1, working: 2, idle: 3, unknown: 4 };

export function rollup(states: AgentState[]): AgentState | undefined {
  let best: AgentState | undefined;
  for (const s of states) if (s !== 'unknown' && (best === undefined || STATE_PRIORITY[s] < STATE_PRIORITY[best])) best = s;
  return best;
}
