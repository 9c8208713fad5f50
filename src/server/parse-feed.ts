// Feeds pty output to the panes' parsers in small pieces, taking turns, so a flooding pane cannot hold up another pane's echo.
//
// xterm parses what it is given in one go for 12 ms and more (whole pty chunks); a keystroke's echo in another pane,
// and the client's next key on the socket, waited behind it. Here each pane's output waits in its own queue. Output
// that finds its queue empty is parsed at once, up to one piece (an echo, a prompt, a short answer: no waiting at
// all); the rest is parsed a piece at a time, round-robin over the panes with output waiting, for at most `turnMs`
// per event-loop turn, after which the loop polls I/O again (setImmediate) before the next turn. While the user is
// typing (noteInput), turns and pieces are shorter: a key that arrives mid-turn waits for the turn's end (a 16 KB
// piece of ANSI text alone parses for ~0.5 ms), and so does its echo. Right after a key the next turn waits for the
// echo (traced under a flood: the echo was read 0.49 ms after the pty write instead of 0.16, one turn later): until
// output finds an idle queue (the echo, parsed at once) or echoWaitMs pass, whichever is first.
// While the user types into one pane, the other panes' output is never parsed at once, only in turns: a flood's
// reads come back to back (libuv reads a pty up to 32 times per wakeup), and each one parsed at once kept the
// socket, and the key on it, waiting for milliseconds (traced: 2.5 ms of reads and parses in a row).

/** Parses synchronously: when parse() returns, the screen shows the data. */
export interface SyncParser {
  parse(data: Uint8Array | string): void;
}

export interface SchedulerOptions {
  /** Bytes parsed in one go (the unit of fairness). */
  pieceBytes?: number;
  /** Parsing time per event-loop turn before yielding to I/O. */
  turnMs?: number;
  /** The turn while the user is typing (for `interactiveMs` after noteInput()). */
  inputTurnMs?: number;
  interactiveMs?: number;
  /** Pieces while the user is typing. */
  inputPieceBytes?: number;
  /** After a key, turns wait this long at most for its echo (0: never). */
  echoWaitMs?: number;
  now?: () => number;
  /** Runs fn on the next turn of the event loop (tests step turns by hand). */
  defer?: (fn: () => void) => void;
  /** Runs fn after ms (a held turn); returns a cancel function. */
  later?: (fn: () => void, ms: number) => () => void;
}

const DEFAULTS = { pieceBytes: 16 * 1024, turnMs: 2, inputTurnMs: 0.5, interactiveMs: 150, inputPieceBytes: 4 * 1024, echoWaitMs: 1 };

type Item = Uint8Array | string | { done: () => void } | { pieces: Iterator<string> };

/** One pane's queue of output not parsed yet. */
export class PaneFeed {
  private items: Item[] = [];
  private offset = 0;
  private bytes = 0;
  private closed = false;
  private parsing = false;

  constructor(
    private readonly sched: ParseScheduler,
    private readonly parser: SyncParser,
    /** After each piece: bytes still queued, and whether any output (counted or lazy) is still waiting. */
    private readonly onParsed: (queued: number, more: boolean) => void,
  ) {}

  /** Lazy items (iterators of pieces) in the queue: output whose size is not known yet. */
  private lazy = 0;

  /** Bytes (UTF-16 units for strings) waiting to be parsed. */
  get queued(): number {
    return this.bytes;
  }

  get idle(): boolean {
    return this.items.length === 0;
  }

  push(data: Uint8Array | string): void {
    if (this.closed || data.length === 0) return;
    const parseNow = this.idle && !this.sched.inTurn && !this.parsing && !this.sched.defers(this);
    this.items.push(data);
    this.bytes += data.length;
    if (parseNow) {
      // While typing, only the typed pane gets here: its answer is what the user waits for, so a whole piece.
      this.step(this.sched.pieceBytes);
      this.sched.echoed(this);
    }
    if (!this.idle) this.sched.wake(this);
  }

  /**
   * castellan's own text that may be long (a restored history): never parsed at once, always in turns, so sixteen
   * panes' histories queued in one go cannot hold the loop (pushed as xterm writes, each screen parsed for 12 ms on its
   * own timer and the timers ran back to back: 206 ms without I/O). Pieces given as an iterator are made when their
   * turn comes (joining 16 panes' 10 000 lines up front took 30-90 ms of one turn). Output pushed later waits behind
   * it, so it still precedes the program's first output.
   */
  queue(text: string | Iterator<string>): void {
    if (this.closed || text === '') return;
    if (typeof text === 'string') {
      this.items.push(text);
      this.bytes += text.length;
    } else {
      this.items.push({ pieces: text });
      this.lazy++;
    }
    this.sched.wake(this);
  }

  /** The user typed into this pane: its echo goes first (ParseScheduler.noteInput). */
  typed(): void {
    this.sched.noteInput(this);
  }

  /** Calls `done` once everything pushed before it is parsed (at once when nothing waits). */
  then(done: () => void): void {
    if (this.closed) return;
    if (this.idle) return done();
    this.items.push({ done });
  }

  /** Drops what waits (the pane is gone); callbacks waiting on it never run. */
  close(): void {
    this.closed = true;
    this.sched.closed(this);
    this.items = [];
    this.offset = 0;
    this.bytes = 0;
    this.lazy = 0;
  }

  /** Parses up to `budget` bytes from the head of the queue; returns true when the queue is empty. */
  step(budget: number): boolean {
    let left = budget;
    while (this.items.length && !this.closed) {
      const head = this.items[0];
      if (typeof head === 'object' && 'done' in head) {
        this.items.shift();
        head.done();
        continue;
      }
      if (left <= 0) break;
      let piece: Uint8Array | string;
      if (typeof head === 'object' && 'pieces' in head) {
        const next = head.pieces.next();
        if (next.done) {
          this.items.shift();
          this.lazy--;
          if (this.bytes === 0 && this.lazy === 0) this.onParsed(0, false);
          continue;
        }
        piece = next.value;
        this.bytes += piece.length;
      } else if (typeof head === 'string') {
        // Strings are castellan's own short notices: parsed whole, never cut inside a surrogate pair.
        piece = head;
        this.items.shift();
      } else if (head.length - this.offset <= left) {
        piece = this.offset ? head.subarray(this.offset) : head;
        this.items.shift();
        this.offset = 0;
      } else {
        piece = head.subarray(this.offset, this.offset + left);
        this.offset += left;
      }
      left -= piece.length;
      this.bytes -= piece.length;
      this.parsing = true;
      try {
        this.parser.parse(piece);
      } finally {
        this.parsing = false;
      }
      this.onParsed(this.bytes, this.bytes > 0 || this.lazy > 0);
    }
    return this.items.length === 0;
  }
}

/** The turns: one per process (there is one event loop), shared by every pane. */
export class ParseScheduler {
  readonly pieceBytes: number;
  private readonly turnMs: number;
  private readonly inputTurnMs: number;
  private readonly interactiveMs: number;
  private readonly inputPieceBytes: number;
  private readonly echoWaitMs: number;
  private interactiveUntil = Number.NEGATIVE_INFINITY;
  /** A key was written and its echo not read yet: turns wait until then (or echoWaitMs). */
  private holdUntil = Number.NEGATIVE_INFINITY;
  private cancelHold: (() => void) | undefined;
  private readonly now: () => number;
  private readonly defer: (fn: () => void) => void;
  private readonly later: (fn: () => void, ms: number) => () => void;
  /** The pane the user last typed into (its output is still parsed at once): undefined when not known. */
  private typedInto: PaneFeed | undefined;
  /** Feeds with output waiting, in the order they take turns. */
  private readonly busy = new Set<PaneFeed>();
  private scheduled = false;
  inTurn = false;
  /** Turns run so far (tests and the bench read it). */
  turns = 0;

  constructor(o: SchedulerOptions = {}) {
    this.pieceBytes = Math.max(1, o.pieceBytes ?? DEFAULTS.pieceBytes);
    this.turnMs = o.turnMs ?? DEFAULTS.turnMs;
    this.inputTurnMs = o.inputTurnMs ?? DEFAULTS.inputTurnMs;
    this.interactiveMs = o.interactiveMs ?? DEFAULTS.interactiveMs;
    this.inputPieceBytes = Math.max(1, o.inputPieceBytes ?? DEFAULTS.inputPieceBytes);
    this.echoWaitMs = o.echoWaitMs ?? DEFAULTS.echoWaitMs;
    this.now = o.now ?? (() => performance.now());
    this.defer = o.defer ?? ((fn) => void setImmediate(fn));
    this.later =
      o.later ??
      ((fn, ms) => {
        const t = setTimeout(fn, ms);
        return () => clearTimeout(t);
      });
  }

  feed(parser: SyncParser, onParsed: (queued: number, more: boolean) => void = () => {}): PaneFeed {
    return new PaneFeed(this, parser, onParsed);
  }

  /**
   * A pane screen's feed, as the server wires it (PaneRuntime; the restore bench and its tests use the same): parsed
   * at once through parseNow, and the screen told after each piece whether more of its output waits, so its history
   * is not encoded meanwhile. `onQueued`: the bytes still queued (the pty's backpressure).
   */
  feedScreen(screen: { parseNow(data: Uint8Array | string): void; outputWaiting(on: boolean): void }, onQueued?: (queued: number) => void): PaneFeed {
    return this.feed({ parse: (d) => screen.parseNow(d) }, (queued, more) => {
      onQueued?.(queued);
      screen.outputWaiting(more);
    });
  }

  /**
   * The user typed (into `into`, or some pane): for a moment, turns are short, so the next key and its echo wait less
   * behind a flood, and the other panes' output waits for turns.
   */
  noteInput(into?: PaneFeed): void {
    const t = this.now();
    this.typedInto = into;
    this.interactiveUntil = t + this.interactiveMs;
    if (this.echoWaitMs > 0) this.holdUntil = t + this.echoWaitMs;
  }

  /** `f`'s pane is gone: not kept as the pane typed into (it holds the pane's screen). */
  closed(f: PaneFeed): void {
    if (this.typedInto === f) this.typedInto = undefined;
  }

  /** While the user types into another pane, `f`'s output waits for a turn instead of being parsed at once. */
  defers(f: PaneFeed): boolean {
    return this.typedInto !== undefined && this.typedInto !== f && this.now() < this.interactiveUntil;
  }

  /** Bytes per piece in a turn: fewer while the user types. */
  private piece(): number {
    return this.now() < this.interactiveUntil ? Math.min(this.inputPieceBytes, this.pieceBytes) : this.pieceBytes;
  }

  /** How long a key's echo may still hold turns (0: none awaited); frame ticks wait for it too (client-link.ts). */
  echoDueIn(): number {
    return this.holdUntil === Number.NEGATIVE_INFINITY ? 0 : Math.max(0, this.holdUntil - this.now());
  }

  /** Output of `f` found its queue idle and was parsed at once (a key's echo, if it is the pane typed into): a held turn goes ahead now. */
  echoed(f?: PaneFeed): void {
    if (this.holdUntil === Number.NEGATIVE_INFINITY) return;
    if (this.typedInto && f !== this.typedInto) return;
    this.holdUntil = Number.NEGATIVE_INFINITY;
    if (!this.cancelHold) return;
    this.cancelHold();
    this.cancelHold = undefined;
    this.defer(() => this.turn());
  }

  /** `f` has output waiting: give it turns. */
  wake(f: PaneFeed): void {
    this.busy.add(f);
    if (this.scheduled) return;
    this.scheduled = true;
    this.defer(() => this.turn());
  }

  /** One turn: a piece from each waiting feed in order, round after round, until the time is up or all are parsed. */
  turn(): void {
    this.cancelHold = undefined;
    const t0 = this.now();
    if (t0 < this.holdUntil && this.busy.size) {
      // Still scheduled: wake() adds feeds without queueing a second turn; echoed() or the timer runs this one.
      this.cancelHold = this.later(() => this.turn(), this.holdUntil - t0);
      return;
    }
    this.holdUntil = Number.NEGATIVE_INFINITY;
    this.scheduled = false;
    this.turns++;
    const interactive = t0 < this.interactiveUntil;
    const budget = interactive ? Math.min(this.inputTurnMs, this.turnMs) : this.turnMs;
    const piece = this.piece();
    this.inTurn = true;
    try {
      while (this.busy.size) {
        for (const f of [...this.busy]) {
          if (f.step(piece)) this.busy.delete(f);
          else {
            // Round-robin: whoever just had a piece goes to the back.
            this.busy.delete(f);
            this.busy.add(f);
          }
          if (this.now() - t0 >= budget) return;
        }
      }
    } finally {
      this.inTurn = false;
      if (this.busy.size && !this.scheduled) {
        this.scheduled = true;
        this.defer(() => this.turn());
      }
    }
  }
}

/** The server's scheduler. */
export const parseScheduler = new ParseScheduler();
