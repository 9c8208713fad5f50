// The herd as the page shows it: every pane with its agent badge, "needs me" first (pure: State in, rows out).
import type { AgentState, State } from '../core/types.js';
import { focusedPanes, needsMe } from '../core/select.js';
import { stripControls } from '../core/text.js';

export interface HerdRow {
  pane: string;
  window: string;
  title: string;
  agent?: string;
  state: AgentState;
  message?: string;
  /** When the state began (ms since epoch): the page shows "for 3 min". */
  since: number;
  needsMe: boolean;
  /** An attached terminal client has it on screen (the page does not notify about what someone already sees). */
  inView: boolean;
  exited?: boolean;
  /** The session the pane is in (set when the herd spans sessions) and its machine (undefined: this one). */
  session?: string;
  machine?: string;
  /** Its session did not answer lately: this is what it said last. */
  stale?: boolean;
}

/** Blocked agents wait on a person; a finished turn waits to be read; then the rest. */
const RANK: Record<AgentState, number> = { blocked: 0, done: 1, idle: 2, working: 3, unknown: 4 };

const clean = (s: string, max: number): string => stripControls(s, ' ').slice(0, max);

export function herdRows(st: State): HerdRow[] {
  const rows: HerdRow[] = [];
  const inView = focusedPanes(st);
  for (const p of Object.values(st.panes)) {
    const a = p.agent;
    const title = p.name || p.programTitle || p.command.join(' ') || p.id;
    rows.push({
      pane: p.id,
      window: p.window,
      title: clean(title, 200),
      ...(a.agent ? { agent: clean(a.agent, 40) } : {}),
      state: a.state,
      ...(a.message ? { message: clean(a.message, 500) } : {}),
      since: a.since,
      needsMe: needsMe({ state: a.state, exited: p.exited }),
      inView: inView.has(p.id),
      ...(p.exited ? { exited: true } : {}),
    });
  }
  return sortRows(rows);
}

/** Stale rows after fresh ones, exited after running, then blocked, done, idle, working, oldest state first. */
export function sortRows(rows: HerdRow[]): HerdRow[] {
  return rows.sort((x, y) => Number(!!x.stale) - Number(!!y.stale) || Number(!!x.exited) - Number(!!y.exited) || RANK[x.state] - RANK[y.state] || x.since - y.since || x.pane.localeCompare(y.pane, 'en', { numeric: true }));
}
