// A pane's history: lines that scrolled off xterm's screen move, in batches, into a compact store; reads see one list.
//
// xterm keeps only SMALL lines of scrollback. Its normal buffer then holds [0, M) lines already archived
// (the store's newest lines, kept so a taller pane can pull them back as xterm does), [M, baseY) lines
// that left the screen but are not archived yet, and the screen. `M` is tracked with an xterm marker on
// line M-1, which follows xterm's own trimming; once BATCH unarchived lines pile up they are archived.
// Since BATCH < SMALL, xterm only ever trims archived lines. Readers see store lines, then xterm's lines
// from M on, as one list numbered from the oldest kept line (absolute numbers stay put as output
// arrives, for copy mode), cut to the scrollback limit.
//
// Resize: xterm reflows what it holds (the screen, and the few history lines a taller pane pulls back);
// archived lines keep the wrapping they had when they left the screen, like a terminal that does not reflow
// its history. Lines wider than the pane are cut when drawn, never in `pane read`.
// ED3 (`\e[3J`) and RIS (`\ec`) clear history, as xterm does. The alternate screen has no history; the normal
// buffer's stays readable under it (view('normal'), for snapshots).
import type { IBufferLine, IMarker, Terminal } from '@xterm/headless';
import { ArchivedLine, type LineView } from './archived-line.js';
import { TieredStore } from './pending.js';
import { probe, rawLineAt } from './xterm-cells.js';

/** Scrollback lines xterm itself keeps when history is archived. */
export const SMALL = 64;
/** Unarchived history lines that trigger archiving (< SMALL: xterm must never trim an unarchived line). */
export const BATCH = 32;

type XBuffer = Terminal['buffer']['normal'];

export class Scrollback {
  readonly archiving: boolean;
  /** The raw tier may hold `limit` full-width lines: lines a flood evicts are then never encoded. */
  private readonly store = new TieredStore(() => this.limit * this.term.cols * 3);
  private marker: IMarker | undefined;
  /** M while no marker can follow it (M is 0, or the alternate screen is active). */
  private parkedM = 0;
  /** Lines dropped from the front of history so far: the absolute number of the oldest line kept. */
  private dropped = 0;
  /** Without archiving: lines that scrolled off the normal screen (with baseY, numbers the lines xterm trimmed). */
  private scrolls = 0;

  /** The `scrollback` option to create xterm with, for a history limit of `limit` lines. */
  static xtermScrollback(limit: number): number {
    return limit > SMALL ? SMALL : limit;
  }

  /** term.buffer, fetched once: xterm's getter checks the proposed-API flag on every call, and scrolled() runs per line. */
  private readonly buf: Terminal['buffer'];

  constructor(private readonly term: Terminal, readonly limit: number) {
    this.buf = term.buffer;
    this.archiving = limit > SMALL && probe(term);
    // Never seen: xterm's layout changed. Keep everything in xterm, as before there was a store.
    if (limit > SMALL && !this.archiving) term.options.scrollback = limit;
    this.buf.onBufferChange(() => this.follow());
  }

  /** xterm scrolled (fired once per line that scrolled); cheap unless a batch is due. */
  scrolled(): void {
    const nb = this.buf.normal;
    if (this.buf.active.type !== 'normal') return;
    if (!this.archiving) {
      this.scrolls++;
      return;
    }
    if (nb.baseY - this.m >= BATCH) this.archiveAll(nb);
  }

  /** Resizes xterm, keeping every history line (see the file comment). */
  resize(cols: number, rows: number): void {
    const t = this.term;
    if (!this.archiving) {
      t.resize(cols, rows);
      return;
    }
    const nb = this.buf.normal;
    this.archive(nb);
    // Keep in xterm only the lines a taller pane may pull back onto its screen, and room for the lines the
    // resize pushes off the screen (every screen row may wrap into several), so xterm trims nothing.
    const keep = rows > t.rows ? Math.min(rows - t.rows, nb.baseY, this.store.count) : 0;
    t.options.scrollback = keep;
    t.options.scrollback = keep + t.rows * Math.ceil(t.cols / cols) + rows;
    this.store.dropNewest(keep);
    this.setM(0);
    t.resize(cols, rows);
    this.archive(nb);
    t.options.scrollback = SMALL;
    this.setM(nb.baseY);
    this.evict(nb);
  }

  /** ED3 is about to clear the history of the active buffer. */
  clearing(): void {
    const nb = this.buf.normal;
    if (!this.archiving || this.buf.active.type !== 'normal') return;
    this.dropped += this.store.count + nb.baseY - this.m;
    this.store.clear();
    // xterm is about to trim all its history (our marker with it).
    this.setM(0);
  }

  /** RIS is about to reset xterm (both buffers, history included). */
  resetting(): void {
    const nb = this.buf.normal;
    if (!this.archiving) return;
    this.dropped += this.store.count + nb.baseY - this.m;
    this.store.clear();
    this.marker?.dispose();
    this.marker = undefined;
    this.parkedM = 0;
  }

  /**
   * History + screen of the active buffer, oldest first, as one list with absolute line numbers. `normal` reads the
   * normal buffer even while a program holds the alternate screen (which has no history): its lines stay put there.
   */
  view(buffer: 'active' | 'normal' = 'active'): HistoryView {
    const b = buffer === 'normal' ? this.buf.normal : this.buf.active;
    if (b.type !== 'normal') return new HistoryView(b, 0, undefined, 0, 0);
    if (!this.archiving) return new HistoryView(b, Math.max(0, this.scrolls - b.baseY), undefined, 0, 0);
    const m = this.m;
    const history = this.store.count + b.baseY - m;
    const cut = Math.max(0, history - this.limit);
    return new HistoryView(b, this.dropped + cut, this.store, m, cut);
  }

  /** Bytes held by archived lines (for stats and tests). */
  storeBytes(): number {
    return this.store.bytes();
  }

  /** More of the pane's output waits to be parsed: its lines are not encoded meanwhile (TieredStore.hold). */
  outputWaiting(on: boolean): void {
    this.store.hold(on);
  }

  /** Archived lines not encoded yet (they are while the pane is quiet; any read encodes them first). */
  pendingLines(): number {
    return this.store.pendingCount;
  }

  dispose(): void {
    this.marker?.dispose();
    this.marker = undefined;
    this.store.clear();
  }

  private get m(): number {
    // A disposed marker (its line trimmed away) reads -1: nothing archived is left in xterm.
    return this.marker ? this.marker.line + 1 : this.parkedM;
  }

  /** Archives xterm's unarchived history lines; afterwards M = baseY. */
  private archive(nb: XBuffer): void {
    for (let y = this.m; y < nb.baseY; y++) {
      const line = rawLineAt(nb, y);
      if (line) this.store.push(line);
    }
  }

  private archiveAll(nb: XBuffer): void {
    this.archive(nb);
    this.setM(nb.baseY);
    this.evict(nb);
  }

  /** Moves the boundary: a marker on line m-1 when the normal buffer is active (xterm refuses markers elsewhere). */
  private setM(m: number): void {
    this.marker?.dispose();
    this.marker = undefined;
    this.parkedM = m;
    if (m > 0 && this.buf.active.type === 'normal') {
      const nb = this.buf.normal;
      this.marker = this.term.registerMarker(m - 1 - (nb.baseY + nb.cursorY));
    }
  }

  /** Back on the normal screen: a parked boundary gets its marker. */
  private follow(): void {
    if (this.archiving && !this.marker && this.parkedM > 0) this.setM(this.parkedM);
  }

  /** Oldest archived lines go once history holds more than the limit. */
  private evict(nb: XBuffer): void {
    const over = this.store.count + nb.baseY - this.m - this.limit;
    if (over <= 0) return;
    const k = Math.min(over, this.store.count);
    this.store.dropOldest(k);
    this.dropped += k;
  }
}

/** A read-only list of history + screen lines; absolute number `first` is its oldest. */
export class HistoryView {
  /** Lines in the list. */
  readonly length: number;

  constructor(
    private readonly b: XBuffer,
    /** Absolute number of the oldest line in the list. */
    readonly first: number,
    private readonly store: TieredStore | undefined,
    /** First xterm line after the archived ones. */
    private readonly m: number,
    /** Lines at the front hidden by the limit. */
    private readonly cut: number,
  ) {
    this.length = (store?.count ?? 0) + b.length - m - cut;
  }

  /** Line i of the list (0 = oldest), or undefined. */
  at(i: number): LineView | undefined {
    if (!(i >= 0 && i < this.length)) return undefined;
    const v = i + this.cut;
    const n = this.store?.count ?? 0;
    if (v < n) return new ArchivedLine(this.store!.line(v)!);
    return this.b.getLine(this.m + v - n) as IBufferLine | undefined;
  }

  /** Line by absolute number. */
  line(abs: number): LineView | undefined {
    return this.at(abs - this.first);
  }

  /** Index in the list of the first screen row. */
  get screenTop(): number {
    return this.length - (this.b.length - this.b.baseY);
  }
}
