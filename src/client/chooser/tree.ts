// The chooser's tree (tmux choose-tree): sessions → windows → panes as rows, folded, filtered, "needs me" narrowed.
import { needsMe } from '../../core/select.js';
import type { AgentState } from '../../core/types.js';

export interface ChooserPane {
  id: string;
  title: string;
  /** The badge as the border shows it: `unknown` for programs that are not agents. */
  state: AgentState;
  agent?: string;
  message?: string;
  exited?: boolean;
  active: boolean;
}

export interface ChooserWindow {
  id: string;
  index: number;
  name: string;
  current: boolean;
  panes: ChooserPane[];
}

export interface ChooserSession {
  name: string;
  /** The session this client is attached to (choosing a pane of another one moves the client to that server). */
  current: boolean;
  /** Another session's server did not answer: listed, not expandable. */
  unreachable?: boolean;
  /** Another session's socket: where choosing one of its panes moves the client. */
  socket?: string;
  /** A session of another machine (chooser/machines.ts): listed with its badges, reached by `attach --machine`. */
  machine?: string;
  /** That machine did not answer (yet): why, and what is shown is its last known listing. */
  stale?: string;
  windows: ChooserWindow[];
}

export type RowKind = 'session' | 'window' | 'pane';

export interface ChooserRow {
  /** `s:NAME`, `s:NAME/w1`, `s:NAME/w1:p2`: stable across reloads, so folds and the cursor survive them. */
  key: string;
  kind: RowKind;
  depth: 0 | 1 | 2;
  session: string;
  window?: ChooserWindow;
  pane?: ChooserPane;
  /** Has children (a fold marker is drawn). */
  expandable: boolean;
  expanded: boolean;
  /** Session rows: how many windows, whether it is this client's, whether its server answered. */
  windowCount?: number;
  current?: boolean;
  unreachable?: boolean;
  /** Session rows of another machine: which, and why its listing is stale (drawn dimmed). */
  machine?: string;
  stale?: string;
  /** Panes below this row that need the user (for folded rows). */
  needs: number;
}

export { needsMe };

export const sessionKey = (s: string) => `s:${s}`;
export const windowKey = (s: string, w: string) => `s:${s}/${w}`;
export const paneKey = (s: string, p: string) => `s:${s}/${p}`;

/** The folds `prefix s` (sessions level: every session folded) and `prefix w` (windows level: windows folded) open with. */
export function initialCollapsed(sessions: ChooserSession[], level: 'sessions' | 'windows'): Set<string> {
  const out = new Set<string>();
  for (const s of sessions) {
    if (level === 'sessions') out.add(sessionKey(s.name));
    for (const w of s.windows) out.add(windowKey(s.name, w.id));
  }
  return out;
}

/** Text a filter matches for a pane: its id, title, agent, state and report message, plus its window's name. */
function paneText(s: ChooserSession, w: ChooserWindow, p: ChooserPane): string {
  return `${s.name} ${w.index}:${w.name} ${p.id} ${p.title} ${p.agent ?? ''} ${p.state === 'unknown' ? '' : p.state} ${p.message ?? ''}`.toLowerCase();
}

/** Every word of the filter must appear somewhere (fzf's default is looser; words are what people type here). */
function matches(text: string, words: string[]): boolean {
  return words.every((w) => text.includes(w));
}

export interface RowOptions {
  collapsed: ReadonlySet<string>;
  filter: string;
  needsMe: boolean;
}

/**
 * The visible rows. A filter or the needs-me narrowing shows every matching pane with its window and
 * session above it, unfolded (as tmux's filter does); without them, folds apply.
 */
export function buildRows(sessions: ChooserSession[], o: RowOptions): ChooserRow[] {
  const words = o.filter.toLowerCase().split(/\s+/).filter(Boolean);
  const narrowing = words.length > 0 || o.needsMe;
  const rows: ChooserRow[] = [];
  for (const s of sessions) {
    const sk = sessionKey(s.name);
    const wins: Array<{ w: ChooserWindow; panes: ChooserPane[]; needs: number; self: boolean }> = [];
    for (const w of s.windows) {
      const windowHit = words.length > 0 && matches(`${s.name} ${w.index}:${w.name} ${w.id}`.toLowerCase(), words);
      const panes = w.panes.filter((p) => (!o.needsMe || needsMe(p)) && (words.length === 0 || windowHit || matches(paneText(s, w, p), words)));
      const needs = w.panes.filter(needsMe).length;
      if (narrowing && panes.length === 0) continue;
      wins.push({ w, panes, needs, self: windowHit });
    }
    const sessionHit = !o.needsMe && words.length > 0 && matches(s.name.toLowerCase(), words);
    if (narrowing && wins.length === 0 && !sessionHit) continue;
    const sOpen = narrowing || !o.collapsed.has(sk);
    rows.push({ key: sk, kind: 'session', depth: 0, session: s.name, windowCount: s.windows.length, current: s.current, ...(s.unreachable ? { unreachable: true } : {}), ...(s.machine ? { machine: s.machine } : {}), ...(s.stale ? { stale: s.stale } : {}), expandable: s.windows.length > 0, expanded: sOpen && s.windows.length > 0, needs: wins.reduce((n, x) => n + x.needs, 0) });
    if (!sOpen) continue;
    for (const { w, panes, needs } of wins) {
      const wk = windowKey(s.name, w.id);
      const wOpen = narrowing || !o.collapsed.has(wk);
      rows.push({ key: wk, kind: 'window', depth: 1, session: s.name, window: w, ...(s.stale ? { stale: s.stale } : {}), expandable: w.panes.length > 0, expanded: wOpen && w.panes.length > 0, needs });
      if (!wOpen) continue;
      for (const p of narrowing ? panes : w.panes) {
        rows.push({ key: paneKey(s.name, p.id), kind: 'pane', depth: 2, session: s.name, window: w, pane: p, ...(s.stale ? { stale: s.stale } : {}), expandable: false, expanded: false, needs: needsMe(p) ? 1 : 0 });
      }
    }
  }
  return rows;
}

/** Where Enter on a row goes: a pane, a window's active pane, a session's current window. */
export function targetOf(sessions: ChooserSession[], row: ChooserRow | undefined): { session: string; current: boolean; socket?: string; machine?: string; window?: string; pane?: string } | undefined {
  if (!row) return undefined;
  const s = sessions.find((x) => x.name === row.session);
  if (!s) return undefined;
  const w = row.window ?? s.windows.find((x) => x.current) ?? s.windows[0];
  const pane = row.pane?.id ?? w?.panes.find((p) => p.active)?.id;
  return { session: s.name, current: s.current, ...(s.socket && !s.current ? { socket: s.socket } : {}), ...(s.machine ? { machine: s.machine } : {}), ...(w ? { window: w.id } : {}), ...(pane ? { pane } : {}) };
}

/** The row the chooser opens on: the focused pane's window (windows level) or session. */
export function startKey(sessions: ChooserSession[], level: 'sessions' | 'windows'): string | undefined {
  const s = sessions.find((x) => x.current) ?? sessions[0];
  if (!s) return undefined;
  if (level === 'sessions') return sessionKey(s.name);
  const w = s.windows.find((x) => x.current);
  return w ? windowKey(s.name, w.id) : sessionKey(s.name);
}
