// Keys and mouse while the chooser is open: pure transitions of its state, or what to do (choose a row, close).
import type { InputEvent } from '../../input/keys.js';
import { editLine } from '../overlays.js';
import { buildRows, initialCollapsed, startKey, targetOf, type ChooserRow, type ChooserSession } from './tree.js';

export interface ChooserState {
  kind: 'chooser';
  level: 'sessions' | 'windows';
  sessions: ChooserSession[];
  loading: boolean;
  collapsed: ReadonlySet<string>;
  /** Key of the highlighted row (kept across reloads and filtering). */
  cursor?: string;
  filter: string;
  /** `/` was pressed: typed keys edit the filter. */
  filtering: boolean;
  needsMe: boolean;
  /** First list row shown. */
  scroll: number;
  /** The highlighted pane's screen (plain text), and the pane it is of. */
  preview?: { pane: string; lines: string[] };
  lastClick?: { key: string; at: number };
  message?: string;
}

export type ChooserTarget = NonNullable<ReturnType<typeof targetOf>>;

export type ChooserOutcome = { kind: 'update'; state: ChooserState | undefined } | { kind: 'choose'; state: ChooserState; target: ChooserTarget };

/** Two clicks on one row within this long are a double click (a terminal reports presses, not double clicks). */
export const DOUBLE_CLICK_MS = 400;

/** Rows of the overlay: a header, the list, then (room allowing) a preview title and the preview, and a footer. */
export function chooserGeometry(rows: number): { listTop: number; listRows: number; previewRows: number } {
  const body = Math.max(1, rows - 2);
  if (body < 10) return { listTop: 1, listRows: body, previewRows: 0 };
  const listRows = Math.max(3, Math.floor((body - 1) / 2));
  return { listTop: 1, listRows, previewRows: body - 1 - listRows };
}

export function openChooser(level: 'sessions' | 'windows'): ChooserState {
  return { kind: 'chooser', level, sessions: [], loading: true, collapsed: new Set(), filter: '', filtering: false, needsMe: false, scroll: 0 };
}

export const rowsOf = (s: ChooserState): ChooserRow[] => buildRows(s.sessions, s);

/** New data (first load or a refresh): folds and the cursor stay where the user put them. */
export function withData(s: ChooserState, sessions: ChooserSession[]): ChooserState {
  const first = s.loading;
  const next: ChooserState = { ...s, sessions, loading: false, ...(first ? { collapsed: initialCollapsed(sessions, s.level), cursor: startKey(sessions, s.level) } : {}) };
  // A filter typed before the tree arrived puts the cursor on its first pane, as typing it afterwards would.
  return settle(first && (s.filter || s.needsMe) ? firstPane(next) : next);
}

/** Keeps the cursor on a visible row (the nearest one when its row went away) and in view. */
export function settle(s: ChooserState, listRows = 10, prefer = 0): ChooserState {
  const rows = rowsOf(s);
  let i = rows.findIndex((r) => r.key === s.cursor);
  if (i < 0) i = rows.length ? Math.min(rows.length - 1, Math.max(0, prefer)) : -1;
  const cursor = i >= 0 ? rows[i].key : undefined;
  let scroll = Math.min(s.scroll, Math.max(0, rows.length - listRows));
  if (i >= 0 && i < scroll) scroll = i;
  if (i >= 0 && i >= scroll + listRows) scroll = i - listRows + 1;
  return { ...s, cursor, scroll: Math.max(0, scroll) };
}

/** The cursor on the first pane row left (or the first row at all). */
function firstPane(s: ChooserState): ChooserState {
  const rows = rowsOf(s);
  return { ...s, cursor: (rows.find((r) => r.kind === 'pane') ?? rows[0])?.key };
}

function toggleFold(s: ChooserState, row: ChooserRow, open: boolean): ChooserState {
  if (!row.expandable || row.expanded === open) return s;
  const collapsed = new Set(s.collapsed);
  if (open) collapsed.delete(row.key);
  else collapsed.add(row.key);
  return { ...s, collapsed };
}

export function chooserInput(s: ChooserState, e: InputEvent, rows: number, now = Date.now()): ChooserOutcome {
  const { listTop, listRows } = chooserGeometry(rows);
  const list = rowsOf(s);
  const at = Math.max(0, list.findIndex((r) => r.key === s.cursor));
  const row = list[at];
  const update = (next: ChooserState | undefined, prefer = at): ChooserOutcome => ({ kind: 'update', state: next && settle(next, listRows, prefer) });
  const move = (i: number) => update({ ...s, cursor: list[Math.max(0, Math.min(list.length - 1, i))]?.key, message: undefined });
  const choose = (): ChooserOutcome => {
    const target = targetOf(s.sessions, row);
    return target ? { kind: 'choose', state: s, target } : { kind: 'update', state: s };
  };
  if (e.type === 'mouse') {
    const i = s.scroll + (e.y - listTop);
    if (e.action === 'wheel-up') return update({ ...s, scroll: Math.max(0, s.scroll - 3) });
    if (e.action === 'wheel-down') return update({ ...s, scroll: Math.min(Math.max(0, list.length - listRows), s.scroll + 3) });
    if (e.action !== 'press' || e.button !== 0 || e.y < listTop || e.y >= listTop + listRows || !list[i]) return { kind: 'update', state: s };
    const key = list[i].key;
    if (s.lastClick?.key === key && now - s.lastClick.at <= DOUBLE_CLICK_MS) {
      const target = targetOf(s.sessions, list[i]);
      if (target) return { kind: 'choose', state: { ...s, cursor: key, lastClick: undefined }, target };
    }
    return update({ ...s, cursor: key, lastClick: { key, at: now } });
  }
  if (e.type !== 'key' && e.type !== 'paste') return { kind: 'update', state: s };
  const key = e.type === 'key' ? e.key : '';
  // Movement and choosing work the same while typing a filter (as in fzf).
  switch (key) {
    case 'Up':
    case 'C-p':
      return move(at - 1);
    case 'Down':
    case 'C-n':
      return move(at + 1);
    case 'PageUp':
      return move(at - listRows);
    case 'PageDown':
      return move(at + listRows);
    case 'Enter':
      return choose();
    case 'C-c':
    case 'C-g':
      return update(undefined);
  }
  if (s.filtering) {
    if (key === 'Escape') return update({ ...s, filtering: false, filter: '' }, 0);
    if (key === 'Tab') return update({ ...s, filtering: false });
    const t = editLine(s.filter, e);
    // The list narrows as one types; the cursor goes to the first matching pane (as in fzf).
    return t === undefined ? { kind: 'update', state: s } : update(firstPane({ ...s, filter: t, scroll: 0 }), 0);
  }
  switch (key) {
    case 'q':
    case 'Escape':
      return update(undefined);
    case 'k':
      return move(at - 1);
    case 'j':
      return move(at + 1);
    case 'Home':
    case 'g':
      return move(0);
    case 'End':
    case 'G':
      return move(list.length - 1);
    case '/':
      return update({ ...s, filtering: true, message: undefined });
    case 'n':
      return update(s.needsMe ? { ...s, needsMe: false } : firstPane({ ...s, needsMe: true, scroll: 0 }), 0);
    case 'Right':
    case 'l':
    case '+':
      return row ? update(toggleFold(s, row, true)) : { kind: 'update', state: s };
    case 'Left':
    case 'h':
    case '-': {
      if (!row) return { kind: 'update', state: s };
      if (row.expanded) return update(toggleFold(s, row, false));
      // On a folded or leaf row, Left goes up to its parent (as in tmux and most tree views).
      const parent = list.slice(0, at).reverse().find((r) => r.depth < row.depth);
      return parent ? update({ ...s, cursor: parent.key }) : { kind: 'update', state: s };
    }
    default:
      return { kind: 'update', state: s };
  }
}
