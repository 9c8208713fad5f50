// Copy mode per client: entering, keys, wheel scrolling, mouse selection, castellan's paste buffers.
import type { Style, Theme } from '../config/themes.js';
import { copyKey, copyScroll, startCopy, selectionText, type CopyState, type Pos } from './copy-mode.js';
import { copyBufferOf, loadCopyWidth, type CopyStyles } from './copy-render.js';
import type { Screen } from './screen.js';

/** Theme style → SGR parameters (for rows the server renders itself). */
export function styleSgr(s: Style | undefined): string {
  if (!s) return '';
  const p: string[] = [];
  const color = (c: string | undefined, base: 38 | 48) => {
    if (!c || c === 'default') return;
    if (c.startsWith('ansi:')) p.push(`${base};5;${c.slice(5)}`);
    else if (/^#[0-9a-f]{6}$/i.test(c)) p.push(`${base};2;${parseInt(c.slice(1, 3), 16)};${parseInt(c.slice(3, 5), 16)};${parseInt(c.slice(5, 7), 16)}`);
  };
  if (s.bold) p.push('1');
  if (s.dim) p.push('2');
  if (s.italic) p.push('3');
  if (s.underline) p.push('4');
  if (s.inverse) p.push('7');
  color(s.fg, 38);
  color(s.bg, 48);
  return p.join(';');
}

export function copyStyles(theme: Theme): CopyStyles {
  return {
    selection: styleSgr(theme.roles['copy.selection']) || '7',
    match: styleSgr(theme.roles['copy.match']) || '4',
    current: styleSgr(theme.roles['copy.match.current']) || '7;1',
    indicator: styleSgr(theme.roles['copy.indicator']) || '7',
  };
}

export type CopyOp =
  | { op: 'enter' }
  | { op: 'exit' }
  | { op: 'key'; key: string }
  | { op: 'scroll'; lines: number; fromWheel?: boolean };

/** Per-client copy-mode state: one CopyState per pane the client has in copy mode. */
export class CopyController {
  readonly states = new Map<string, CopyState>();
  private drag: { pane: string; at: Pos; moved: boolean } | undefined;

  constructor(private readonly keys: () => 'vi' | 'emacs') {}

  get(pane: string): CopyState | undefined {
    return this.states.get(pane);
  }

  /** Applies an op; returns text to copy when the user copied a selection. */
  apply(pane: string, screen: Screen, o: CopyOp): string | undefined {
    void loadCopyWidth();
    const buf = copyBufferOf(screen);
    let s = this.states.get(pane);
    if (o.op === 'enter') {
      if (!s) this.states.set(pane, startCopy(pane, buf, this.keys()));
      return undefined;
    }
    if (o.op === 'exit') {
      this.states.delete(pane);
      return undefined;
    }
    if (o.op === 'scroll') {
      if (!s) {
        if (o.lines >= 0) return undefined;
        s = { ...startCopy(pane, buf, this.keys()), exitAtBottom: !!o.fromWheel };
      }
      const next = copyScroll(s, buf, o.lines);
      if (next) this.states.set(pane, next);
      else this.states.delete(pane);
      return undefined;
    }
    if (!s) return undefined;
    const r = copyKey(s, buf, o.key);
    if (r.state) this.states.set(pane, r.state);
    else this.states.delete(pane);
    return r.copied;
  }

  /** Mouse selection: press sets the anchor, a drag selects (entering copy mode), release copies. */
  mouse(pane: string, screen: Screen, action: 'press' | 'move' | 'release', x: number, y: number): string | undefined {
    const buf = copyBufferOf(screen);
    const s = this.states.get(pane);
    const top = s ? s.top : Math.max(buf.first, buf.first + buf.length - buf.rows);
    const line = screen.lines().line(top + y);
    const text = line ? line.translateToString(false, 0, Math.min(screen.cols, x)) : '';
    const at: Pos = { line: top + Math.max(0, Math.min(buf.rows - 1, y)), col: [...text].length };
    if (action === 'press') {
      this.drag = { pane, at, moved: false };
      if (s) this.states.set(pane, { ...s, cursor: at, selection: undefined });
      return undefined;
    }
    if (!this.drag || this.drag.pane !== pane) return undefined;
    if (action === 'move') {
      void loadCopyWidth();
      const cur = this.states.get(pane) ?? startCopy(pane, buf, this.keys(), this.drag.at);
      this.drag.moved = true;
      this.states.set(pane, { ...cur, cursor: at, selection: { anchor: this.drag.at, mode: 'char' }, exitAtBottom: false });
      return undefined;
    }
    const d = this.drag;
    this.drag = undefined;
    const cur = this.states.get(pane);
    if (!d.moved || !cur?.selection) return undefined;
    const copied = selectionText({ ...cur, cursor: at }, buf);
    this.states.delete(pane);
    return copied || undefined;
  }

  forget(pane: string): void {
    this.states.delete(pane);
  }
}
