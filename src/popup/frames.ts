// A popup's frames to its one client: changed rows and the cursor, on the frame clock, at once after a keystroke.
import type { Rect } from '../core/types.js';
import type { PaneRuntime } from '../server/pane-runtime.js';

export interface PopupSink {
  send(msg: unknown): boolean;
  readonly closed: boolean;
  writableLength?: () => number;
}

/** Above this many bytes queued to the client, a frame waits (a slow client gets fewer frames, not a queue). */
const MAX_QUEUED = 512 * 1024;

export class PopupFrames {
  private sent: string[] = [];
  private sentCursor = '';
  private timer: NodeJS.Timeout | undefined;
  private immediate: NodeJS.Immediate | undefined;
  private lastAt = 0;

  constructor(
    private readonly id: string,
    private readonly sink: PopupSink,
    private readonly rt: () => PaneRuntime | undefined,
    private readonly frameMs: () => number,
  ) {}

  /** Tells the client where the popup is and what it is called; every row is sent again after it. */
  place(rect: Rect, title: string): void {
    this.sent = [];
    this.sentCursor = '';
    this.sink.send({ popup: { id: this.id, open: { rect, title } } });
    this.schedule(true);
  }

  schedule(urgent = false): void {
    if (this.sink.closed || this.immediate || (this.timer && !urgent)) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (urgent) {
      this.immediate = setImmediate(() => {
        this.immediate = undefined;
        this.flush();
      });
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, Math.max(0, this.lastAt + this.frameMs() - Date.now()));
  }

  private flush(): void {
    const rt = this.rt();
    if (!rt || this.sink.closed) return;
    if ((this.sink.writableLength?.() ?? 0) > MAX_QUEUED) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.flush();
      }, this.frameMs());
      return;
    }
    this.lastAt = Date.now();
    const rows = rt.screen.viewportRows();
    const lines: Array<[number, string]> = [];
    for (let y = 0; y < rows.length; y++) {
      if (this.sent[y] === rows[y]) continue;
      lines.push([y, rows[y]]);
      this.sent[y] = rows[y];
    }
    const c = rt.screen.cursor();
    const cursor = { pane: this.id, x: c.x, y: c.y, visible: c.visible && !rt.exited, shape: c.shape, blink: c.blink, ...(c.isDefault ? { isDefault: true } : {}) };
    const cursorJson = JSON.stringify(cursor);
    if (!lines.length && cursorJson === this.sentCursor) return;
    this.sentCursor = cursorJson;
    this.sink.send({ popup: { id: this.id, lines, cursor } });
  }

  closed(how: { code: number | null; signal?: number | null; reason: string }): void {
    // The program's last output is parsed before its exit is reported (pane-runtime): send that frame first, so a
    // client (or a test) that watches the popup sees everything it printed, however fast it exited.
    if (how.reason === 'exited') this.flush();
    this.dispose();
    if (!this.sink.closed) this.sink.send({ popup: { id: this.id, closed: how } });
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.immediate) clearImmediate(this.immediate);
    this.timer = undefined;
    this.immediate = undefined;
  }
}
