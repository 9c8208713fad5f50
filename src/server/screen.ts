// One pane's emulated screen: parses the pty's output once and hands out styled rows, modes and events.
//
// Change tracking: viewportRows() re-serializes only the rows that may have changed since its last call
// (dirty-rows.ts: xterm's own dirty-row range; all rows after a scroll, resize or buffer switch) and
// compares each string with the cached one. Unchanged rows keep their old string, and if no row changed
// the cached array itself is returned, so callers can skip work with `===` on the array or on each row.
import xterm from '@xterm/headless';
import type { Terminal as XTerm, IDisposable } from '@xterm/headless';
import unicode11 from '@xterm/addon-unicode11';
import { Scrollback, type HistoryView } from '../history/index.js';
import { lineCount, readLines, readRange, type ReadLinesOptions } from './screen-read.js';
import { DirtyRows } from './dirty-rows.js';
import { plainRow, stripControls } from './sgr.js';
import { noteProgress, type TerminalSignals } from '../detect/generic-signals.js';

export type { ReadLinesOptions } from './screen-read.js';

const { Terminal } = xterm;
const { Unicode11Addon } = unicode11;

export type MouseTracking = 'none' | 'x10' | 'vt200' | 'drag' | 'any';
export type MouseEncoding = 'default' | 'utf8' | 'sgr' | 'urxvt' | 'sgr-pixels';
export type CursorShape = 'block' | 'underline' | 'bar';

export interface ScreenModes {
  applicationCursorKeys: boolean; applicationKeypad: boolean; bracketedPaste: boolean;
  mouseTracking: MouseTracking; mouseEncoding: MouseEncoding; sendFocus: boolean;
  alternateScreen: boolean; cursorVisible: boolean; originMode?: boolean; insertMode?: boolean; wraparound?: boolean;
}

export interface CursorInfo {
  /** Column and row inside the visible screen, 0-based. */
  x: number;
  y: number;
  visible: boolean;
  shape: CursorShape;
  blink: boolean;
  /** True until the program picks a shape (DECSCUSR 1-6), and again after DECSCUSR 0, RIS or
   * DECSTR: the client should then show the user's own cursor style rather than force `shape`. */
  isDefault?: boolean;
}

export interface ScreenSnapshot {
  cols: number;
  rows: number;
  /** Plain text of the visible rows, trailing spaces trimmed. */
  lines: readonly string[];
  title: string;
  cursor: { x: number; y: number };
  alternateScreen: boolean;
  /** What the program told the terminal besides drawing (OSC 9;4, bells, notifications): src/detect/generic-signals.ts. */
  signals: TerminalSignals;
}

export interface ScreenNotification { title?: string; body: string }

// Program-supplied text (titles, notifications) is capped so a runaway program cannot bloat state.
const MAX_TITLE = 1024;
const MAX_NOTIFY = 4096;
const clean = (text: string, max: number): string => stripControls(text, '').slice(0, max);

const ENCODINGS: Readonly<Record<number, MouseEncoding>> = {
  1005: 'utf8', 1006: 'sgr', 1015: 'urxvt', 1016: 'sgr-pixels',
};
const SHAPES: Readonly<Record<number, CursorShape>> = {
  1: 'block', 2: 'block', 3: 'underline', 4: 'underline', 5: 'bar', 6: 'bar',
};

// A listener that throws must not unwind xterm's parse loop (that would leave its write queue
// stuck), so errors go to `onListenerError`: by default rethrown on their own microtask, where they
// surface as an ordinary uncaught exception.
const rethrow = (err: unknown): void => queueMicrotask(() => { throw err; });

class Listeners<T> {
  private readonly set = new Set<(value: T) => void>();
  constructor(private readonly onError: (err: unknown) => void) {}
  add(cb: (value: T) => void): () => void {
    this.set.add(cb);
    return () => { this.set.delete(cb); };
  }
  emit(value: T): void {
    for (const cb of this.set) {
      try { cb(value); } catch (err) { this.onError(err); }
    }
  }
  clear(): void { this.set.clear(); }
}

export interface ScreenOptions {
  cols: number;
  rows: number;
  scrollback: number;
  /** Where errors thrown by this screen's listeners go (default: rethrown asynchronously). */
  onListenerError?: (err: unknown) => void;
  /** false: re-serialise every row after any change (dirty-rows.ts; the reference in tests). */
  trackRows?: boolean;
}

export class Screen {
  private readonly term: XTerm;
  private readonly disposables: IDisposable[] = [];
  private readonly writeParsed: Listeners<void>;
  private readonly titles: Listeners<string>;
  private readonly bells: Listeners<void>;
  private readonly notifications: Listeners<ScreenNotification>;
  private readonly cwds: Listeners<string>;
  private readonly replies: Listeners<string>;
  private readonly allListeners: Array<{ clear(): void }>;

  private readonly history: Scrollback;
  /**
   * Makes xterm parse the next write synchronously (its "after user input" path) instead of on a timer. term.input('',
   * true) does it through xterm's input events (~50 us of a cold keystroke path); its write buffer's own switch is
   * private, so it is looked up and the public call stays the fallback.
   */
  private readonly parseNextAtOnce: () => void;
  private _version = 0;
  private _title = '';
  private _cwd: string | undefined;
  private pending = 0;
  private disposed = false;
  // State xterm keeps privately; mirrored from the escape sequences themselves.
  private cursorVisible = true;
  private mouseEncoding: MouseEncoding = 'default';
  private cursorShape: CursorShape = 'block';
  private cursorBlink = false;
  private cursorDefault = true;
  // Caches: rows by `dirty`, the snapshot by touch().
  private readonly dirty: DirtyRows;
  private rowsCache: string[] = [];
  private snapshotCache: ScreenSnapshot | undefined;
  // Counters mutated in place by the OSC and bell handlers (a flood costs no allocation); copied once per snapshot.
  private readonly sig: TerminalSignals = { seq: 0, progress: 0, progressSeq: 0, bellSeq: 0, notifySeq: 0, titleSeq: 0 };

  constructor(opts: ScreenOptions) {
    checkSize(opts.cols, opts.rows);
    const onError = opts.onListenerError ?? rethrow;
    this.allListeners = [
      this.writeParsed = new Listeners(onError), this.titles = new Listeners(onError),
      this.bells = new Listeners(onError), this.notifications = new Listeners(onError),
      this.cwds = new Listeners(onError), this.replies = new Listeners(onError),
    ];
    this.term = new Terminal({
      cols: opts.cols,
      rows: opts.rows,
      scrollback: Scrollback.xtermScrollback(Math.max(0, Math.floor(opts.scrollback))),
      allowProposedApi: true, // the unicode and marker APIs are "proposed"
    });
    this.dirty = new DirtyRows(this.term, opts.trackRows ?? true);
    const wb = (this.term as unknown as { _core?: { _writeBuffer?: { handleUserInput?: () => void } } })._core?._writeBuffer;
    const handle = wb?.handleUserInput;
    this.parseNextAtOnce = typeof handle === 'function' ? () => handle.call(wb) : () => this.term.input('', true);
    this.history = new Scrollback(this.term, Math.max(0, Math.floor(opts.scrollback)));
    // Unicode 11 widths match what current terminals draw for emoji and CJK.
    this.term.loadAddon(new Unicode11Addon());
    this.term.unicode.activeVersion = '11';
    this.listen();
  }

  get cols(): number { return this.term.cols; }
  get rows(): number { return this.term.rows; }
  /** Bumped whenever parsed output, a resize or a scroll may have changed the viewport. */
  get version(): number { return this._version; }
  get title(): string { return this._title; }
  /** The directory the program last reported with OSC 7, if any. */
  get cwd(): string | undefined { return this._cwd; }
  /** How many terminal signals (OSC 9;4, bells, notifications, titles) the program has sent: generic-signals.ts. */
  get signalSeq(): number { return this.sig.seq; }
  /** Bytes (UTF-16 units for strings) handed to write() whose callback has not fired yet. */
  get pendingBytes(): number { return this.pending; }


  /** History + screen of the active buffer as one list (copy mode reads it; absolute numbers stay put as output arrives). */
  lines(): HistoryView {
    return this.history.view();
  }

  /** A scratch cell for reading lines of lines() (renderers reuse one per row). */
  scratchCell(): import('@xterm/headless').IBufferCell {
    return this.term.buffer.active.getNullCell();
  }

  /** Rows the last viewportRows() re-serialised (0 when it returned its cache). */
  get rowsSerialised(): number { return this.dirty.lastSerialised; }

  /** Bytes held by this screen's archived history (lines that left xterm). */
  get historyBytes(): number {
    return this.history.storeBytes();
  }

  /** Parse pty bytes; cb fires once they are parsed (used for flow control). */
  write(data: Uint8Array | string, cb?: () => void): void {
    if (this.disposed) { if (cb) queueMicrotask(cb); return; }
    const n = typeof data === 'string' ? data.length : data.byteLength;
    // Counted first: after user input xterm parses (and calls back) before write() returns.
    this.pending += n;
    try {
      this.term.write(data, () => {
        this.pending -= n;
        // onWriteParsed only fires after the whole batch, so mark the change here too: a caller
        // reading the screen inside its callback must not get a stale cache.
        this.touch();
        this.dirty.parsed();
        cb?.();
      });
    } catch (err) {
      this.pending -= n; // xterm refused it (over 50 MB queued)
      throw err;
    }
  }

  /** Parses before returning (parse-feed.ts slices big output): xterm parses at once a write that follows user input. */
  parseNow(data: Uint8Array | string): void {
    if (this.disposed) return;
    this.parseNextAtOnce();
    this.write(data);
  }

  resize(cols: number, rows: number): void {
    checkSize(cols, rows);
    if (this.disposed || (cols === this.term.cols && rows === this.term.rows)) return;
    this.history.resize(cols, rows);
    this.touch();
    this.dirty.markAll();
  }

  get modes(): ScreenModes {
    const m = this.term.modes;
    return {
      applicationCursorKeys: m.applicationCursorKeysMode,
      applicationKeypad: m.applicationKeypadMode,
      bracketedPaste: m.bracketedPasteMode,
      mouseTracking: m.mouseTrackingMode,
      mouseEncoding: this.mouseEncoding,
      sendFocus: m.sendFocusMode,
      alternateScreen: this.term.buffer.active.type === 'alternate',
      cursorVisible: this.cursorVisible,
      originMode: m.originMode,
      insertMode: m.insertMode,
      wraparound: m.wraparoundMode,
    };
  }

  cursor(): CursorInfo {
    const b = this.term.buffer.active;
    const y = b.baseY + b.cursorY - b.viewportY;
    return {
      // After writing the last column xterm parks the cursor at x === cols (wrap pending).
      x: Math.min(b.cursorX, this.term.cols - 1),
      y,
      visible: this.cursorVisible && y >= 0 && y < this.term.rows,
      shape: this.cursorShape,
      blink: this.cursorBlink,
      isDefault: this.cursorDefault,
    };
  }

  /** SGR-styled text of every visible row (see sgr.ts); the same array when nothing changed. */
  viewportRows(): string[] {
    if (this.disposed) return this.rowsCache;
    this.rowsCache = this.dirty.refresh(this.rowsCache);
    return this.rowsCache;
  }

  /** The last lines of scrollback + screen (history first); trailing blank screen rows dropped. */
  readLines(opts: ReadLinesOptions = {}): string[] {
    return readLines(this.history.view(), this.term, this.term.buffer.active.getNullCell(), opts);
  }

  // lineCount, readRange and normalLines are what a snapshot keeps of the pane (restore/history-pieces.ts): the
  // NORMAL buffer's history and screen, even while a program (vim, less, a full-screen agent) holds the alternate
  // screen. That screen has no history, and a restored pane runs a new shell, not the program that drew it.

  /** How many lines the normal buffer's scrollback + screen hold (up to its last non-blank screen row). */
  lineCount(): number {
    return lineCount(this.history.view('normal'));
  }

  /** Lines [from, to) of the normal buffer's scrollback + screen, SGR-styled or plain, for serialising in slices. */
  readRange(from: number, to: number, ansi: boolean): string[] {
    return readRange(this.history.view('normal'), this.term.cols, this.term.buffer.active.getNullCell(), from, to, ansi);
  }

  /** History lines not encoded yet (a snapshot lets them be encoded in slices rather than by its first read). */
  pendingLines(): number { return this.history.pendingLines(); }
  /** The feed has more of this pane's output queued (parse-feed.ts): history is not encoded until it is parsed. */
  outputWaiting(on: boolean): void { this.history.outputWaiting(on); }

  /** Numbering of the lines lineCount/readRange read. */
  normalLines(): HistoryView {
    return this.history.view('normal');
  }

  /** Plain view for agent-state detection; cached until the screen changes (treat as read-only). */
  snapshot(): ScreenSnapshot {
    if (this.snapshotCache) return this.snapshotCache;
    const b = this.term.buffer.active;
    const lines: string[] = [];
    for (let y = 0; y < this.term.rows; y++) lines.push(plainRow(b.getLine(b.viewportY + y)));
    const { x, y } = this.cursor();
    this.snapshotCache = Object.freeze({
      cols: this.term.cols,
      rows: this.term.rows,
      lines: Object.freeze(lines),
      title: this._title,
      cursor: Object.freeze({ x, y }),
      alternateScreen: b.type === 'alternate',
      signals: Object.freeze({ ...this.sig }),
    });
    return this.snapshotCache;
  }

  onWriteParsed(cb: () => void): () => void { return this.writeParsed.add(cb); }
  onTitle(cb: (title: string) => void): () => void { return this.titles.add(cb); }
  onBell(cb: () => void): () => void { return this.bells.add(cb); }
  /** OSC 9 (iTerm2 style) and OSC 777 (`notify;title;body`) notifications. */
  onNotify(cb: (n: ScreenNotification) => void): () => void { return this.notifications.add(cb); }
  /** OSC 7 working-directory reports, as a decoded path. */
  onCwd(cb: (cwd: string) => void): () => void { return this.cwds.add(cb); }
  /** Bytes the emulator answers the program with (DA, DSR, CPR, DECRQM...): write them to the pty. */
  onReply(cb: (data: string) => void): () => void { return this.replies.add(cb); }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const d of this.disposables) d.dispose();
    this.dirty.dispose();
    for (const l of this.allListeners) l.clear();
    this.history.dispose();
    // xterm's dispose keeps the buffer: drop the history now, so a screen still referenced somewhere holds a few rows, not megabytes.
    this.term.options.scrollback = 0;
    this.term.reset();
    this.term.dispose();
  }

  private touch(): void {
    this._version++;
    this.snapshotCache = undefined;
  }

  private listen(): void {
    const t = this.term;
    const p = t.parser;
    this.disposables.push(
      t.onWriteParsed(() => { this.touch(); this.dirty.parsed(); this.writeParsed.emit(); }),
      t.onScroll(() => {
        this.history.scrolled();
        this.touch();
        this.dirty.markAll();
      }),
      t.buffer.onBufferChange(() => this.dirty.markAll()),
      t.onData((data) => { if (data) this.replies.emit(data); }),
      t.onBell(() => { this.sig.bellSeq = ++this.sig.seq; this.snapshotCache = undefined; this.bells.emit(); }),
      t.onTitleChange((raw) => {
        this._title = clean(raw, MAX_TITLE);
        this.sig.titleSeq = ++this.sig.seq;
        this.snapshotCache = undefined;
        this.titles.emit(this._title);
      }),
      // The handlers below observe state xterm keeps private, then return false so xterm still acts.
      p.registerCsiHandler({ prefix: '?', final: 'h' }, (params) => this.decset(params, true)),
      p.registerCsiHandler({ prefix: '?', final: 'l' }, (params) => this.decset(params, false)),
      p.registerCsiHandler({ intermediates: ' ', final: 'q' }, (params) => this.decscusr(params)),
      p.registerCsiHandler({ intermediates: '!', final: 'p' }, () => this.resetTracked(false)), // DECSTR
      p.registerEscHandler({ final: 'c' }, () => (this.history.resetting(), this.dirty.markAll(), this.resetTracked(true))), // RIS
      // ED3 clears history (the archived part is castellan's to clear).
      p.registerCsiHandler({ final: 'J' }, (params) => (params.includes(3) && (this.history.clearing(), this.dirty.markAll()), false)),
      p.registerOscHandler(9, (data) => this.osc9(data)),
      p.registerOscHandler(777, (data) => this.osc777(data)),
      p.registerOscHandler(7, (data) => this.osc7(data)),
    );
  }

  private decset(params: (number | number[])[], on: boolean): boolean {
    for (const mode of params) {
      if (mode === 25) this.cursorVisible = on;
      else if (typeof mode === 'number' && ENCODINGS[mode]) {
        // xterm itself ignores 1005/1015, but castellan encodes mouse reports for the program, so
        // the program's request is what counts.
        if (on) this.mouseEncoding = ENCODINGS[mode];
        else if (this.mouseEncoding === ENCODINGS[mode]) this.mouseEncoding = 'default';
      }
    }
    return false;
  }

  private decscusr(params: (number | number[])[]): boolean {
    const ps = typeof params[0] === 'number' ? params[0] : 0;
    const shape = SHAPES[ps];
    if (ps === 0) this.resetCursorStyle();
    else if (shape) [this.cursorShape, this.cursorBlink, this.cursorDefault] = [shape, ps % 2 === 1, false];
    return false;
  }

  private resetCursorStyle(): void {
    [this.cursorShape, this.cursorBlink, this.cursorDefault] = ['block', false, true];
  }

  // RIS resets everything; DECSTR (soft reset) leaves mouse reporting alone, as xterm does.
  private resetTracked(hard: boolean): boolean {
    this.cursorVisible = true;
    this.resetCursorStyle();
    if (hard) this.mouseEncoding = 'default';
    return false;
  }

  private osc9(data: string): boolean {
    // ConEmu/Windows Terminal reuse OSC 9 with a numeric sub-command (9;4 is progress): not a message.
    if (/^\d+(;|$)/.test(data)) {
      if (noteProgress(this.sig, data)) this.snapshotCache = undefined;
      return false;
    }
    this.noteNotify();
    this.notifications.emit({ body: clean(data, MAX_NOTIFY) });
    return true;
  }

  private osc777(data: string): boolean {
    const [kind, title, ...body] = data.split(';');
    if (kind !== 'notify') return false;
    const t = clean(title ?? '', MAX_TITLE);
    this.noteNotify();
    this.notifications.emit({ ...(t ? { title: t } : {}), body: clean(body.join(';'), MAX_NOTIFY) });
    return true;
  }

  private noteNotify(): void {
    this.sig.notifySeq = ++this.sig.seq;
    this.snapshotCache = undefined;
  }

  private osc7(data: string): boolean {
    let path: string;
    try {
      const url = new URL(data);
      if (url.protocol !== 'file:') return false;
      path = decodeURIComponent(url.pathname);
    } catch { return false; }
    this._cwd = clean(path, MAX_NOTIFY);
    this.cwds.emit(this._cwd);
    return true;
  }
}

function checkSize(cols: number, rows: number): void {
  if (!Number.isInteger(cols) || !Number.isInteger(rows) || cols < 1 || rows < 1) {
    throw new RangeError(`screen size must be positive integers, got ${cols}x${rows}`);
  }
}
