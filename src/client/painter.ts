// The row-diff painter: writes changed chrome lines and changed pane rows with absolute moves, in one synchronized update.
import type { Rect } from '../core/types.js';
import type { FrameCursor } from '../api/frame.js';

export interface PaneSlot {
  id: string;
  /** Inner rect (where the pane's screen goes), in terminal coordinates, 0-based. */
  inner: Rect;
}

/** Drawn over panes and chrome (a popup, src/client/popup): after each paint it redraws what it covers on the rows just overdrawn. */
export interface FloatLayer {
  id: string;
  /** Where a cursor of pane `id` goes (terminal coordinates). */
  inner: Rect;
  paint(overdrawn: ReadonlySet<number>): string;
}

/** The cursor the painter places: the one the server's frame carries. */
export type PaintCursor = FrameCursor;

const SHAPE_CODE: Record<string, [number, number]> = { block: [1, 2], underline: [3, 4], bar: [5, 6] };
const cup = (row: number, col: number) => `\x1b[${row + 1};${col + 1}H`;

export class Painter {
  private chrome: string[] = [];
  private chromeSent: string[] = [];
  private slots: PaneSlot[] = [];
  private rows = new Map<string, string[]>();
  private dirty = new Map<string, Set<number>>();
  private cursor: PaintCursor | null = null;
  private cursorSent = '';
  /** While a full-screen overlay is up, pane rows are kept but not drawn. */
  private covered = false;
  private float: FloatLayer | undefined;
  bytesWritten = 0;
  paints = 0;

  constructor(private readonly write: (s: string) => void) {}

  /** Forget the screen: everything is drawn again on the next paint. */
  reset(): void {
    this.chromeSent = [];
    this.cursorSent = '';
    for (const s of this.slots) this.markAll(s.id);
  }

  private markAll(id: string): void {
    const slot = this.slots.find((s) => s.id === id);
    if (!slot) return;
    const set = this.dirty.get(id) ?? new Set<number>();
    for (let y = 0; y < slot.inner.h; y++) set.add(y);
    this.dirty.set(id, set);
  }

  setChrome(lines: string[]): void {
    this.chrome = lines;
  }

  setSlots(slots: PaneSlot[]): void {
    const before = new Map(this.slots.map((s) => [s.id, s.inner]));
    this.slots = slots;
    for (const s of slots) {
      const b = before.get(s.id);
      if (!b || b.x !== s.inner.x || b.y !== s.inner.y || b.w !== s.inner.w || b.h !== s.inner.h) this.markAll(s.id);
    }
    for (const id of [...this.rows.keys()]) if (!slots.some((s) => s.id === id)) this.rows.delete(id);
  }

  /** Shows a floating layer, or removes it (everything it covered is drawn again). */
  setFloat(f: FloatLayer | undefined): void {
    if (this.float && !f) this.reset();
    this.float = f;
  }

  setCovered(covered: boolean): void {
    if (this.covered && !covered) for (const s of this.slots) this.markAll(s.id);
    this.covered = covered;
  }

  /** New content for some rows of a pane (from a server frame). */
  updateRows(id: string, lines: Array<[number, string]>): void {
    let rows = this.rows.get(id);
    if (!rows) this.rows.set(id, (rows = []));
    const set = this.dirty.get(id) ?? new Set<number>();
    for (const [y, text] of lines) {
      rows[y] = text;
      set.add(y);
    }
    this.dirty.set(id, set);
  }

  /** Drops stored rows of a pane whose screen size changed (the server resends them whole). */
  resetPane(id: string): void {
    this.rows.set(id, []);
    this.markAll(id);
  }

  setCursor(c: PaintCursor | null): void {
    this.cursor = c;
  }

  paint(): void {
    let out = '';
    const overdrawn = new Set<number>();
    // Chrome lines that changed are redrawn whole; pane rows on those lines must be redrawn over them.
    for (let y = 0; y < this.chrome.length; y++) {
      const line = this.chrome[y] ?? '';
      if (line === this.chromeSent[y]) continue;
      out += `${cup(y, 0)}\x1b[0m\x1b[2K${line}\x1b[0m`;
      this.chromeSent[y] = line;
      overdrawn.add(y);
      for (const s of this.slots) {
        if (y >= s.inner.y && y < s.inner.y + s.inner.h) {
          const set = this.dirty.get(s.id) ?? new Set<number>();
          set.add(y - s.inner.y);
          this.dirty.set(s.id, set);
        }
      }
    }
    if (!this.covered) {
      for (const s of this.slots) {
        const set = this.dirty.get(s.id);
        if (!set || set.size === 0) continue;
        const rows = this.rows.get(s.id) ?? [];
        for (const y of set) {
          if (y >= s.inner.h) continue;
          // Erase the pane's part of the row first (ECH does not move the cursor), then write the styled text.
          out += `${cup(s.inner.y + y, s.inner.x)}\x1b[0m\x1b[${s.inner.w}X${rows[y] ?? ''}`;
          overdrawn.add(s.inner.y + y);
        }
        set.clear();
      }
    }
    if (this.float) out += this.float.paint(overdrawn);
    const c = this.cursor;
    const slot = c ? (c.pane === this.float?.id ? this.float : this.slots.find((s) => s.id === c.pane)) : undefined;
    let cursorOut: string;
    if (c && slot && c.visible && !this.covered && c.x < slot.inner.w && c.y < slot.inner.h) {
      const code = c.isDefault ? 0 : SHAPE_CODE[c.shape]?.[c.blink ? 0 : 1] ?? 0;
      cursorOut = `\x1b[0m${cup(slot.inner.y + c.y, slot.inner.x + c.x)}\x1b[${code} q\x1b[?25h`;
    } else {
      cursorOut = '\x1b[?25l';
    }
    if (!out && cursorOut === this.cursorSent) return;
    // Hide the cursor while drawing so it never flickers across the screen; synchronized output keeps frames whole.
    const frame = `\x1b[?2026h\x1b[?25l${out}${cursorOut}\x1b[?2026l`;
    this.cursorSent = cursorOut;
    this.bytesWritten += frame.length;
    this.paints++;
    this.write(frame);
  }
}
