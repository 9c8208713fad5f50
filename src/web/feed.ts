// One pane's screen as a stream of messages: its history and screen once, then changed rows at most every FRAME_MS.
// Used for a page's own panes (src/web/live.ts) and, through the web.view socket method, by a server that serves the
// page for another session's panes: the same frames either way.
import type { PaneScreen } from './types.js';

/** A pane's frames go out at most this often. */
export const FRAME_MS = 40;
/** History lines sent when a pane opens, and at most this many scrolled-off lines in one frame. */
export const HISTORY_LINES = 2000;

export interface ScreenMsg {
  t: 'screen';
  pane: string;
  cols: number;
  rows: number;
  history: string[];
  lines: string[];
  cursor: { x: number; y: number; visible: boolean };
}

export interface FrameMsg {
  t: 'frame';
  pane: string;
  /** The screen scrolled by this many lines (its top rows go into the page's history). */
  scroll?: number;
  /**
   * The lines that left the screen since the last frame, as the server's history has them, oldest first: with a
   * scroll under a screen they are the page's top rows (corrected, then scrolled off); with a whole screen or more
   * (a burst) they replace the page's old screen in its history.
   */
  above?: string[];
  rows: Record<number, string>;
  cursor: { x: number; y: number; visible: boolean };
}

export interface FeedSink {
  send(msg: ScreenMsg | FrameMsg): void;
  /** True while the far side has too much queued: the frame waits (intermediate frames are dropped, not queued). */
  slow(): boolean;
}

export class PaneFeed {
  private timer: NodeJS.Timeout | undefined;
  private sent: string[] = [];
  private cols: number;
  private rows: number;
  private top: number | undefined;
  private readonly unsub: () => void;
  private stopped = false;

  constructor(private readonly screen: PaneScreen, private readonly pane: string, private readonly sink: FeedSink) {
    this.cols = screen.cols;
    this.rows = screen.rows;
    this.unsub = screen.onChange(() => this.schedule());
  }

  /** The pane's history and screen (also after a resize, when the rows no longer line up with what the page has). */
  start(): void {
    const s = this.screen;
    this.cols = s.cols;
    this.rows = s.rows;
    const lines = s.viewportRows();
    this.sent = lines.slice();
    this.top = s.top?.();
    this.sink.send({ t: 'screen', pane: this.pane, cols: s.cols, rows: s.rows, history: s.history(HISTORY_LINES), lines, cursor: s.cursor() });
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.unsub();
  }

  private schedule(): void {
    if (this.timer || this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.stopped) return;
      if (this.sink.slow()) return this.schedule();
      this.frame();
    }, FRAME_MS).unref();
  }

  private frame(): void {
    const s = this.screen;
    if (s.cols !== this.cols || s.rows !== this.rows) return this.start();
    const rows = s.viewportRows();
    const top = s.top?.();
    let k: number;
    let above: string[] | undefined;
    let base: string[];
    if (top !== undefined && this.top !== undefined && top >= this.top) {
      // The normal screen says exactly how far it scrolled, and the lines that left it are in its history as they were
      // when they left (a row the page had blank may have been written since): they go along, so the page's history
      // gets them right. More than a screen: the page's old screen is replaced by them, not scrolled into its history.
      const n = top - this.top;
      k = Math.min(n, rows.length);
      above = n > 0 && s.range ? s.range(Math.max(this.top, top - HISTORY_LINES), top) : undefined;
      if (above && n < rows.length && above.length !== n) above = undefined;
      base = n >= rows.length ? Array<string>(rows.length).fill('') : [...this.sent.slice(k), ...Array<string>(k).fill('')];
    } else {
      // The alternate screen (no history) or a screen that cannot say: guess from the rows.
      k = scrolledBy(this.sent, rows);
      base = k ? [...this.sent.slice(k), ...Array<string>(k).fill('')] : this.sent;
    }
    this.top = top;
    const changed: Record<number, string> = {};
    for (let i = 0; i < rows.length; i++) if (rows[i] !== base[i]) changed[i] = rows[i];
    this.sent = rows.slice();
    this.sink.send({ t: 'frame', pane: this.pane, ...(k ? { scroll: k } : {}), ...(above?.length ? { above } : {}), rows: changed, cursor: s.cursor() });
  }
}

/**
 * How many lines the screen scrolled between two frames: the smallest k whose shifted old screen matches the new one
 * on every overlapping row that had text (with at least one such row; rows that were blank may have been written since,
 * as a scrolling log writes its new last lines), when that leaves fewer rows to send than no shift; else 0.
 */
export function scrolledBy(old: readonly string[], now: readonly string[]): number {
  const n = now.length;
  if (old.length !== n || n < 2) return 0;
  let plain = 0;
  for (let i = 0; i < n; i++) if (old[i] !== now[i]) plain++;
  if (plain === 0) return 0;
  for (let k = 1; k < n; k++) {
    let same = true;
    let text = false;
    for (let i = 0; i + k < n && same; i++) {
      if (old[i + k] === '') continue;
      if (now[i] !== old[i + k]) same = false;
      else text = true;
    }
    if (same && text && k < plain) return k;
  }
  return 0;
}
