// Which visible rows of a screen may have changed since they were last serialised: xterm's own dirty-row range, or all.
//
// Re-serialising all rows of a 200x50 screen costs ~0.3-0.4 ms, on every keystroke's echo frame. xterm's public API
// does not say which rows a write touched, but its parser keeps that range for its renderer (the browser's repaint
// relies on it: an unmarked change would be a visible bug there) and fires it after each parse, in viewport rows;
// `undefined` means "all" (buffer switch, DECSCNM...). That event is private (InputHandler.onRequestRefreshRows), so
// it is looked up defensively: when it is not there, every change marks all rows, as before. Whatever the parser's
// range does not cover marks all rows too: scrolling (every row moves), resize, a reset, a buffer change, and a
// viewport that moved, or changed size or buffer, since the last serialise (checked at serialise time).
import type { Terminal as XTerm, IDisposable } from '@xterm/headless';
import { serializeRows } from './sgr.js';

type RefreshEvent = (listener: (range: { start: number; end: number } | undefined) => void) => IDisposable;

/** xterm's parser's dirty-row event, if this xterm build has it where expected. */
function refreshEvent(term: XTerm): RefreshEvent | undefined {
  const ih = (term as unknown as { _core?: { _inputHandler?: { onRequestRefreshRows?: unknown } } })._core?._inputHandler;
  const ev = ih?.onRequestRefreshRows;
  return typeof ev === 'function' ? (ev.bind(ih) as RefreshEvent) : undefined;
}

export class DirtyRows {
  /** False when xterm's range is not available: every parsed write then marks all rows. */
  readonly tracking: boolean;
  private all = true;
  private lo = Number.POSITIVE_INFINITY;
  private hi = -1;
  /** What the cached rows were serialised from: a change of any of these makes every row dirty. */
  private at = { viewportY: -1, rows: -1, cols: -1, type: '' };
  private readonly sub: IDisposable | undefined;
  /** Rows serialised by the last refresh() (tests and the bench read it). */
  lastSerialised = 0;

  /** `track: false` ignores xterm's range (every change marks all rows): the reference the tests compare with. */
  constructor(private readonly term: XTerm, track = true) {
    const ev = track ? refreshEvent(term) : undefined;
    this.tracking = !!ev;
    this.sub = ev?.((r) => (r ? this.mark(r.start, r.end) : this.markAll()));
  }

  /** A parsed write ended: without xterm's range, assume every row changed. */
  parsed(): void {
    if (!this.tracking) this.all = true;
  }

  mark(lo: number, hi: number): void {
    if (lo < this.lo) this.lo = lo;
    if (hi > this.hi) this.hi = hi;
  }

  markAll(): void {
    this.all = true;
  }

  /** Nothing may have changed since the last refresh(). */
  get clean(): boolean {
    return !this.all && this.hi < 0;
  }

  /**
   * Rows of the viewport as SGR strings (sgr.ts), re-serialising only the dirty ones; an unchanged row keeps its old
   * string, and the old array itself is returned when no row changed.
   */
  refresh(prev: string[]): string[] {
    if (this.clean) {
      this.lastSerialised = 0;
      return prev;
    }
    const t = this.term;
    const b = t.buffer.active;
    const at = { viewportY: b.viewportY, rows: t.rows, cols: t.cols, type: b.type };
    const moved = at.viewportY !== this.at.viewportY || at.rows !== this.at.rows || at.cols !== this.at.cols || at.type !== this.at.type;
    const all = this.all || moved || prev.length !== t.rows;
    const lo = all ? 0 : Math.max(0, this.lo);
    const hi = all ? t.rows - 1 : Math.min(t.rows - 1, this.hi);
    this.all = false;
    this.lo = Number.POSITIVE_INFINITY;
    this.hi = -1;
    this.at = at;
    this.lastSerialised = Math.max(0, hi - lo + 1);
    if (hi < lo) return prev;
    const fresh = serializeRows(t, b.viewportY + lo, hi - lo + 1);
    let next: string[] | undefined = prev.length === t.rows ? undefined : new Array<string>(t.rows).fill('');
    for (let i = 0; i < fresh.length; i++) {
      const y = lo + i;
      if (fresh[i] === prev[y]) {
        if (next) next[y] = prev[y];
        continue;
      }
      next ??= prev.slice();
      next[y] = fresh[i];
    }
    return next ?? prev;
  }

  dispose(): void {
    this.sub?.dispose();
  }
}
