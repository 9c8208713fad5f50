// Feeds pty output to the panes' parsers in small pieces, taking turns, so a flooding pane cannot hold up another pane's echo.
//
// xterm parses what it is given in one go for 12 ms and more (whole pty chunks); a keystroke's echo in another pane,
// and the client's next key on the socket, waited behind it. Here each pane's output waits in its own queue. Output
// that finds its queue empty is parsed at once, up to one piece (an echo, a prompt, a short answer: no waiting at
// all); the rest is parsed a piece at a time, round-robin over the panes with output waiting, for at most `turnMs`
// per event-loop turn, after which the loop polls I/O again (setImmediate) before the next turn. While the user is
// typing (noteInput), turns are shorter: a key that arrives mid-turn waits for the turn's end, and so does its echo.

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
  now?: () => number;
  /** Runs fn on the next turn of the event loop (tests step turns by hand). */
  defer?: (fn: () => void) => void;
}

const DEFAULTS = { pieceBytes: 16 * 1024, turnMs: 2, inputTurnMs: 0.5, interactiveMs: 150 };

type Item = Uint8Array | string | { done: () => void };

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
    private readonly onParsed: (queued: number) => void,
  ) {}

  /** Bytes (UTF-16 units for strings) waiting to be parsed. */
  get queued(): number {
    return this.bytes;
  }

  get idle(): boolean {
    return this.items.length === 0;
  }

  push(data: Uint8Array | string): void {
    if (this.closed || data.length === 0) return;
    const parseNow = this.idle && !this.sched.inTurn && !this.parsing;
    this.items.push(data);
    this.bytes += data.length;
    if (parseNow) this.step(this.sched.pieceBytes);
    if (!this.idle) this.sched.wake(this);
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
    this.items = [];
    this.offset = 0;
    this.bytes = 0;
  }

  /** Parses up to `budget` bytes from the head of the queue; returns true when the queue is empty. */
  step(budget: number): boolean {
    let left = budget;
    while (this.items.length && !this.closed) {
      const head = this.items[0];
      if (typeof head === 'object' && !(head instanceof Uint8Array)) {
        this.items.shift();
        head.done();
        continue;
      }
      if (left <= 0) break;
      let piece: Uint8Array | string;
      if (typeof head === 'string') {
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
      this.onParsed(this.bytes);
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
  private interactiveUntil = Number.NEGATIVE_INFINITY;
  private readonly now: () => number;
  private readonly defer: (fn: () => void) => void;
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
    this.now = o.now ?? (() => performance.now());
    this.defer = o.defer ?? ((fn) => void setImmediate(fn));
  }

  feed(parser: SyncParser, onParsed: (queued: number) => void = () => {}): PaneFeed {
    return new PaneFeed(this, parser, onParsed);
  }

  /** The user typed (into any pane): for a moment, turns are short, so the next key and its echo wait less behind a flood. */
  noteInput(): void {
    this.interactiveUntil = this.now() + this.interactiveMs;
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
    this.scheduled = false;
    this.turns++;
    const t0 = this.now();
    const budget = t0 < this.interactiveUntil ? Math.min(this.inputTurnMs, this.turnMs) : this.turnMs;
    this.inTurn = true;
    try {
      while (this.busy.size) {
        for (const f of [...this.busy]) {
          if (f.step(this.pieceBytes)) this.busy.delete(f);
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
