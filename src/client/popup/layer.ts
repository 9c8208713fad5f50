// The client's side of a popup: its rows and cursor from the server, drawn with a titled border over the layout.
import type { Theme } from '../../config/themes.js';
import type { Rect } from '../../core/types.js';
import type { MouseEvent } from '../../input/keys.js';
import type { FloatLayer, PaintCursor } from '../painter.js';
import { fit } from '../ui/text-width.js';
import { paint, role } from '../ui/theme-style.js';

const cup = (row: number, col: number) => `\x1b[${row + 1};${col + 1}H`;

/** One `popup` message from the server (src/popup/frames.ts). */
export interface PopupMessage {
  id: string;
  open?: { rect: Rect; title: string };
  lines?: Array<[number, string]>;
  cursor?: PaintCursor;
  closed?: { code: number | null; signal?: number | null; reason: string };
}

export class PopupLayer implements FloatLayer {
  id = '';
  private rect: Rect = { x: 0, y: 0, w: 0, h: 0 };
  private rows: string[] = [];
  private dirty = new Set<number>();
  private top = '';
  private side = '';
  private bottom = '';
  private cursorAt: PaintCursor | null = null;

  constructor(private readonly theme: () => Theme) {}

  get active(): boolean {
    return this.id !== '';
  }

  get inner(): Rect {
    const r = this.rect;
    return { x: r.x + 1, y: r.y + 1, w: r.w - 2, h: r.h - 2 };
  }

  get cursor(): PaintCursor | null {
    return this.active ? this.cursorAt : null;
  }

  /** Over the popup, the mouse is its program's (in its own coordinates); around it, nobody's. */
  mouse(e: MouseEvent): (Omit<MouseEvent, 'type' | 'raw'> & { kind: 'mouse' }) | undefined {
    const r = this.inner;
    if (e.x < r.x || e.x >= r.x + r.w || e.y < r.y || e.y >= r.y + r.h) return undefined;
    const { type: _t, raw: _r, ...rest } = e;
    return { ...rest, kind: 'mouse', x: e.x - r.x, y: e.y - r.y };
  }

  /** Applies a message; returns what changed for the painter: the layer appeared, went away, or only its content. */
  apply(m: PopupMessage): 'opened' | 'closed' | 'content' | 'ignored' {
    if (m.closed) {
      if (m.id !== this.id) return 'ignored';
      this.id = '';
      this.rows = [];
      this.cursorAt = null;
      return 'closed';
    }
    let opened: 'opened' | 'content' = 'content';
    if (m.open) {
      opened = this.id === m.id ? 'content' : 'opened';
      this.id = m.id;
      this.rect = m.open.rect;
      this.rows = [];
      this.border(m.open.title);
      for (let y = 0; y < this.rect.h; y++) this.dirty.add(this.rect.y + y);
    }
    if (m.id !== this.id) return 'ignored';
    for (const [y, text] of m.lines ?? []) {
      this.rows[y] = text;
      this.dirty.add(this.rect.y + 1 + y);
    }
    if (m.cursor) this.cursorAt = m.cursor;
    return opened;
  }

  /** Borders are styled once per placement. */
  private border(title: string): void {
    const st = role(this.theme(), 'pane.border.focused');
    const w = this.rect.w;
    const t = title ? ` ${fit(title, Math.max(0, w - 6))} ` : '';
    this.top = paint(`╭─${t}${'─'.repeat(Math.max(0, w - 3 - [...t].length))}╮`, st);
    this.side = paint('│', st);
    this.bottom = paint(`╰${'─'.repeat(Math.max(0, w - 2))}╯`, st);
  }

  paint(overdrawn: ReadonlySet<number>): string {
    if (!this.active) return '';
    const { x, y: y0, w, h } = this.rect;
    let out = '';
    for (let y = y0; y < y0 + h; y++) {
      if (!overdrawn.has(y) && !this.dirty.has(y)) continue;
      if (y === y0) out += `${cup(y, x)}\x1b[0m${this.top}`;
      else if (y === y0 + h - 1) out += `${cup(y, x)}\x1b[0m${this.bottom}`;
      else out += `${cup(y, x)}\x1b[0m${this.side}\x1b[0m\x1b[${w - 2}X${this.rows[y - y0 - 1] ?? ''}\x1b[0m${cup(y, x + w - 1)}${this.side}`;
    }
    this.dirty.clear();
    return out;
  }
}
