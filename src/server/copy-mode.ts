// Copy mode as a pure state machine: cursor, scrolling, selection and search over a pane's history.

/** What copy mode needs from a pane's buffer; lines are addressed by absolute index (stable as output arrives). */
export interface CopyBuffer {
  /** Absolute index of the oldest line still in history. */
  first: number;
  /** Number of lines (history + screen). */
  length: number;
  rows: number;
  cols: number;
  line(abs: number): string;
  /** The line continues the previous one (soft wrap): copied text joins them without a newline. */
  wrapped(abs: number): boolean;
}

export interface Pos {
  line: number;
  col: number;
}

export interface CopyState {
  pane: string;
  keys: 'vi' | 'emacs';
  /** Absolute index of the first visible row. */
  top: number;
  cursor: Pos;
  selection?: { anchor: Pos; mode: 'char' | 'line' };
  search?: { query: string; backward: boolean };
  prompt?: { backward: boolean; text: string };
  message?: string;
  /** Entered by the mouse wheel: scrolling back to the bottom leaves copy mode (as tmux's copy-mode -e). */
  exitAtBottom?: boolean;
}

export interface CopyOutcome {
  state: CopyState | undefined;
  copied?: string;
}

const last = (b: CopyBuffer) => b.first + b.length - 1;
/** Top row of the live screen. */
const liveTop = (b: CopyBuffer) => Math.max(b.first, last(b) - b.rows + 1);
const clamp = (v: number, lo: number, hi: number) => Math.max(lo, Math.min(hi, v));

export function startCopy(pane: string, b: CopyBuffer, keys: 'vi' | 'emacs', at?: Pos): CopyState {
  const top = liveTop(b);
  return { pane, keys, top, cursor: at ?? { line: last(b), col: 0 } };
}

/** Keeps top within history and the cursor on screen (scrolling the view to it). */
function settle(s: CopyState, b: CopyBuffer): CopyState {
  const line = clamp(s.cursor.line, b.first, last(b));
  const col = clamp(s.cursor.col, 0, b.cols - 1);
  let top = clamp(s.top, b.first, liveTop(b));
  if (line < top) top = line;
  if (line > top + b.rows - 1) top = line - b.rows + 1;
  return { ...s, top, cursor: { line, col } };
}

const isWord = (ch: string | undefined) => !!ch && /[\p{L}\p{N}_]/u.test(ch);

function wordMove(s: CopyState, b: CopyBuffer, kind: 'w' | 'b' | 'e'): Pos {
  let { line, col } = s.cursor;
  const at = (l: number, c: number) => [...b.line(l)][c];
  const step = (dir: 1 | -1): boolean => {
    const len = [...b.line(line)].length;
    if (dir === 1) {
      if (col + 1 < len) col++;
      else if (line < last(b)) (line++, (col = 0));
      else return false;
    } else if (col > 0) col--;
    else if (line > b.first) (line--, (col = Math.max(0, [...b.line(line)].length - 1)));
    else return false;
    return true;
  };
  if (kind === 'w') {
    const inWord = isWord(at(line, col));
    while (isWord(at(line, col)) === inWord && step(1)) if (col === 0) break;
    while (!isWord(at(line, col)) && step(1));
  } else if (kind === 'e') {
    step(1);
    while (!isWord(at(line, col)) && step(1));
    while (isWord(at(line, col + 1)) && step(1));
  } else {
    step(-1);
    while (!isWord(at(line, col)) && step(-1));
    while (col > 0 && isWord(at(line, col - 1))) col--;
  }
  return { line, col };
}

function ordered(a: Pos, c: Pos): [Pos, Pos] {
  return a.line < c.line || (a.line === c.line && a.col <= c.col) ? [a, c] : [c, a];
}

export function selectionText(s: CopyState, b: CopyBuffer): string {
  if (!s.selection) return '';
  const [from, to] = ordered(s.selection.anchor, s.cursor);
  let out = '';
  for (let l = from.line; l <= to.line; l++) {
    const chars = [...b.line(l)];
    const a = s.selection.mode === 'line' || l > from.line ? 0 : from.col;
    const z = s.selection.mode === 'line' || l < to.line ? chars.length : Math.min(chars.length, to.col + 1);
    if (l > from.line && !b.wrapped(l)) out += '\n';
    const seg = chars.slice(a, z).join('');
    // Trailing blanks are padding, except where the line runs on into a soft-wrapped next line.
    out += l < to.line && b.wrapped(l + 1) ? seg : seg.replace(/\s+$/, '');
  }
  return out;
}

/** Finds the next match of the query from the cursor, wrapping around history. */
function find(s: CopyState, b: CopyBuffer, query: string, backward: boolean): Pos | undefined {
  if (!query) return undefined;
  const fold = query === query.toLowerCase();
  const q = fold ? query.toLowerCase() : query;
  const n = b.length;
  for (let i = 0; i <= n; i++) {
    const off = backward ? -i : i;
    const l = b.first + ((((s.cursor.line - b.first + off) % n) + n) % n);
    const text = fold ? b.line(l).toLowerCase() : b.line(l);
    const chars = [...text];
    const str = chars.join('');
    if (!backward) {
      const from = i === 0 ? s.cursor.col + 1 : 0;
      const idx = str.indexOf(q, charOffset(chars, from));
      if (idx !== -1) return { line: l, col: [...str.slice(0, idx)].length };
    } else {
      const until = i === 0 ? s.cursor.col - 1 : chars.length;
      if (until < 0) continue;
      const idx = str.lastIndexOf(q, charOffset(chars, until));
      if (idx !== -1) return { line: l, col: [...str.slice(0, idx)].length };
    }
  }
  return undefined;
}

const charOffset = (chars: string[], col: number) => chars.slice(0, Math.max(0, col)).join('').length;

/** Matches of the current search on the visible rows (for highlighting). */
export function visibleMatches(s: CopyState, b: CopyBuffer): Array<{ line: number; col: number; len: number }> {
  const q = s.search?.query;
  if (!q) return [];
  const fold = q === q.toLowerCase();
  const needle = fold ? q.toLowerCase() : q;
  const out: Array<{ line: number; col: number; len: number }> = [];
  for (let l = s.top; l < s.top + b.rows && l <= last(b); l++) {
    const text = fold ? b.line(l).toLowerCase() : b.line(l);
    let idx = text.indexOf(needle);
    while (idx !== -1) {
      out.push({ line: l, col: [...text.slice(0, idx)].length, len: [...needle].length });
      idx = text.indexOf(needle, idx + Math.max(1, needle.length));
    }
  }
  return out;
}

function searchTo(s: CopyState, b: CopyBuffer, backward: boolean): CopyState {
  if (!s.search) return { ...s, message: 'no search yet: / or ?' };
  const dir = s.search.backward !== backward;
  const hit = find(s, b, s.search.query, dir);
  if (!hit) return { ...s, message: `not found: ${s.search.query}` };
  return { ...s, cursor: hit, message: undefined };
}

/** Scroll the view by n lines (negative: back in history); the cursor stays on screen. */
export function copyScroll(s: CopyState, b: CopyBuffer, n: number): CopyState | undefined {
  const top = clamp(s.top + n, b.first, liveTop(b));
  if (s.exitAtBottom && n > 0 && top >= liveTop(b) && !s.selection) return undefined;
  const line = clamp(s.cursor.line, top, top + b.rows - 1);
  return settle({ ...s, top, cursor: { ...s.cursor, line } }, b);
}

function promptKey(s: CopyState, b: CopyBuffer, key: string): CopyState {
  const p = s.prompt!;
  if (key === 'Escape' || key === 'C-c' || key === 'C-g') return { ...s, prompt: undefined };
  if (key === 'Enter') {
    if (!p.text) return { ...s, prompt: undefined };
    const next = { ...s, prompt: undefined, search: { query: p.text, backward: p.backward } };
    const hit = find(next, b, p.text, p.backward);
    return hit ? { ...next, cursor: hit, message: undefined } : { ...next, message: `not found: ${p.text}` };
  }
  if (key === 'BSpace' || key === 'C-h') return { ...s, prompt: { ...p, text: [...p.text].slice(0, -1).join('') } };
  if (key === 'Space') return { ...s, prompt: { ...p, text: p.text + ' ' } };
  if ([...key].length === 1) return { ...s, prompt: { ...p, text: p.text + key } };
  return s;
}

const VI: Record<string, string> = {
  h: 'left', Left: 'left', l: 'right', Right: 'right', j: 'down', Down: 'down', k: 'up', Up: 'up',
  w: 'word', b: 'back', e: 'end-word', '0': 'bol', Home: 'bol', $: 'eol', End: 'eol', '^': 'bol',
  g: 'top', G: 'bottom', H: 'screen-top', M: 'screen-middle', L: 'screen-bottom',
  'C-u': 'half-up', 'C-d': 'half-down', 'C-b': 'page-up', PageUp: 'page-up', 'C-f': 'page-down', PageDown: 'page-down',
  'C-y': 'scroll-up', 'C-e': 'scroll-down', v: 'select', Space: 'select', V: 'select-line', o: 'swap',
  y: 'copy', Enter: 'copy', q: 'exit', Escape: 'clear-or-exit', 'C-c': 'exit', '/': 'search-forward', '?': 'search-backward', n: 'next', N: 'prev',
};
const EMACS: Record<string, string> = {
  'C-b': 'left', Left: 'left', 'C-f': 'right', Right: 'right', 'C-n': 'down', Down: 'down', 'C-p': 'up', Up: 'up',
  'M-f': 'word', 'M-b': 'back', 'C-a': 'bol', Home: 'bol', 'C-e': 'eol', End: 'eol', 'M-<': 'top', 'M->': 'bottom',
  'M-v': 'page-up', PageUp: 'page-up', 'C-v': 'page-down', PageDown: 'page-down', 'C-Space': 'select',
  'M-w': 'copy', Enter: 'copy', q: 'exit', Escape: 'exit', 'C-g': 'clear-or-exit', 'C-s': 'search-forward', 'C-r': 'search-backward', n: 'next', N: 'prev',
};

/** One key in copy mode. */
export function copyKey(s0: CopyState, b: CopyBuffer, key: string): CopyOutcome {
  let s: CopyState = { ...s0, message: undefined };
  if (s.prompt) return { state: settle(promptKey(s, b, key), b) };
  const act = (s.keys === 'vi' ? VI : EMACS)[key];
  const { line, col } = s.cursor;
  const half = Math.max(1, Math.floor(b.rows / 2));
  const lineLen = (l: number) => [...b.line(l)].length;
  switch (act) {
    case 'left': s = { ...s, cursor: { line, col: col - 1 } }; break;
    case 'right': s = { ...s, cursor: { line, col: Math.min(col + 1, Math.max(0, lineLen(line) - 1)) } }; break;
    case 'up': s = { ...s, cursor: { line: line - 1, col } }; break;
    case 'down': s = { ...s, cursor: { line: line + 1, col } }; break;
    case 'word': s = { ...s, cursor: wordMove(s, b, 'w') }; break;
    case 'back': s = { ...s, cursor: wordMove(s, b, 'b') }; break;
    case 'end-word': s = { ...s, cursor: wordMove(s, b, 'e') }; break;
    case 'bol': s = { ...s, cursor: { line, col: 0 } }; break;
    case 'eol': s = { ...s, cursor: { line, col: Math.max(0, lineLen(line) - 1) } }; break;
    case 'top': s = { ...s, top: b.first, cursor: { line: b.first, col: 0 } }; break;
    case 'bottom': s = { ...s, top: liveTop(b), cursor: { line: last(b), col: 0 } }; break;
    case 'screen-top': s = { ...s, cursor: { line: s.top, col } }; break;
    case 'screen-middle': s = { ...s, cursor: { line: s.top + half, col } }; break;
    case 'screen-bottom': s = { ...s, cursor: { line: s.top + b.rows - 1, col } }; break;
    case 'half-up': s = { ...s, top: s.top - half, cursor: { line: line - half, col } }; break;
    case 'half-down': s = { ...s, top: s.top + half, cursor: { line: line + half, col } }; break;
    case 'page-up': s = { ...s, top: s.top - b.rows, cursor: { line: line - b.rows, col } }; break;
    case 'page-down': s = { ...s, top: s.top + b.rows, cursor: { line: line + b.rows, col } }; break;
    case 'scroll-up': return { state: copyScroll({ ...s, exitAtBottom: false }, b, -1) };
    case 'scroll-down': return { state: copyScroll({ ...s, exitAtBottom: false }, b, 1) };
    case 'select': s = { ...s, selection: s.selection?.mode === 'char' ? undefined : { anchor: s.cursor, mode: 'char' } }; break;
    case 'select-line': s = { ...s, selection: s.selection?.mode === 'line' ? undefined : { anchor: s.cursor, mode: 'line' } }; break;
    case 'swap': if (s.selection) s = { ...s, cursor: s.selection.anchor, selection: { ...s.selection, anchor: s.cursor } }; break;
    case 'copy': {
      if (!s.selection) return { state: { ...s, message: 'nothing selected (v starts a selection)' } };
      return { state: undefined, copied: selectionText(s, b) };
    }
    case 'exit': return { state: undefined };
    case 'clear-or-exit': return { state: s.selection ? { ...s, selection: undefined } : undefined };
    case 'search-forward': s = { ...s, prompt: { backward: false, text: '' } }; break;
    case 'search-backward': s = { ...s, prompt: { backward: true, text: '' } }; break;
    case 'next': s = searchTo(s, b, false); break;
    case 'prev': s = searchTo(s, b, true); break;
    default: return { state: s0 };
  }
  return { state: settle({ ...s, exitAtBottom: false }, b) };
}

/** The indicator shown in the pane's corner: position in history, as tmux does. */
export function copyIndicator(s: CopyState, b: CopyBuffer): string {
  const fromBottom = Math.max(0, liveTop(b) - s.top);
  return `[${fromBottom}/${Math.max(0, b.length - b.rows)}]`;
}

export function selectionRange(s: CopyState): { from: Pos; to: Pos; mode: 'char' | 'line' } | undefined {
  if (!s.selection) return undefined;
  const [from, to] = ordered(s.selection.anchor, s.cursor);
  return { from, to, mode: s.selection.mode };
}
