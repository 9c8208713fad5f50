// One attached UI client: builds its frames (changed view, changed rows of visible panes, cursor) on a frame clock.
import type { Connection } from '../api/context.js';
import type { State } from '../core/types.js';
import type { Frame } from '../api/frame.js';
import { buildView, type ViewModel } from '../core/view.js';
import { CopyController } from './copy-controller.js';
import { renderCopy, type CopyStyles } from './copy-render.js';
import type { PaneRuntime } from './pane-runtime.js';
import { parseScheduler, type ParseScheduler } from './parse-feed.js';
import { noteUserInput } from './input-clock.js';

/** Above this many bytes queued to a client socket, frames are skipped until it drains (a slow client drops frames). */
const MAX_QUEUED = 512 * 1024;
/** After a keystroke, output of the focused pane is sent at once instead of on the next frame tick. */
const INPUT_PRIORITY_MS = 150;
/** A program answering a key with many small writes gets urgent frames at most this often (regular frames do not count). */
const URGENT_GAP_MS = 8;
/**
 * While the visible panes flood (they read at least FLOOD_BYTES between two regular frames: 2 MB/s at 30 fps, 640 KB/s
 * to stay flooding at 10 fps), regular frames come at most every FLOOD_FRAME_MS. Nobody reads a screen that scrolls
 * that fast, and each frame of a scrolling pane re-serialises, sends and paints every row and makes the user's
 * terminal parse them, on the cores the flood's parsing needs. Measured with the real client in an outer tmux
 * (bench/sections/nested.ts, 50 MB): frame_ms 100 instead of 33 took the client's and the outer terminal's CPU from
 * ~350 + ~440 ms to ~235 + ~180 ms and the bytes drawn from ~3.2 MB to ~1.2 MB (load ~20-28). A key's echo is urgent
 * and never waits for this; a program printing at a reading pace keeps frame_ms.
 */
export const FLOOD_BYTES = 64 * 1024;
export const FLOOD_FRAME_MS = 100;

export class ClientLink {
  private sentView = '';
  /** The view is a pure function of State (immutable) and this client's id: rebuilt only when State changed. */
  private viewOf: { state: State; view: ViewModel | undefined } | undefined;
  private sentRows = new Map<string, { cols: number; rows: number; lines: string[] }>();
  private sentCursor = '';
  private sentMouse = false;
  private sentCopy = 'null';
  readonly copy: CopyController;
  private timer: NodeJS.Timeout | undefined;
  /** An urgent frame is due: `all` panes, or only these (the echo goes out alone; a flooding neighbour waits for the tick). */
  private urgent: { all: boolean; panes: Set<string> } | undefined;
  private urgentTimer: NodeJS.Timeout | undefined;
  private lastFrameAt = 0;
  private lastUrgentAt = 0;
  private lastInputAt = 0;
  private needReset = true;
  private waitingDrain = false;
  /** The visible panes flooded before the last regular frame (FLOOD_BYTES since the one before it). */
  private flooding = false;
  /** Bytes the visible panes had read at the last regular frame, by pane. */
  private bytesAt = new Map<string, number>();
  frames = 0;

  constructor(
    readonly id: string,
    readonly conn: Connection & { writableLength?: () => number; onDrain?: (cb: () => void) => void },
    private readonly frameMs: () => number,
    private readonly source: { state(): State; pane(id: string): PaneRuntime | undefined; copyStyles(): CopyStyles; copyKeys(): 'vi' | 'emacs' },
    private readonly parsing: Pick<ParseScheduler, 'echoDueIn'> = parseScheduler,
  ) {
    this.copy = new CopyController(() => source.copyKeys());
  }

  noteInput(): void {
    this.lastInputAt = Date.now();
    noteUserInput(this.lastInputAt);
  }

  /** Forget everything sent: the next frame is a full repaint. */
  reset(): void {
    this.needReset = true;
    this.sentView = '';
    this.sentRows.clear();
    this.sentCursor = '';
    this.schedule(true);
  }

  /**
   * Ask for a frame. `urgent` sends it as soon as the current callback is done (a key's effect); output of the
   * focused pane right after a key is urgent too, and then that frame carries only that pane (and the cursor).
   */
  schedule(urgent = false, paneId?: string): void {
    if (this.conn.closed) return;
    let only: string | undefined;
    if (!urgent && paneId && Date.now() - this.lastInputAt < INPUT_PRIORITY_MS) {
      const st = this.source.state();
      const c = st.clients[this.id];
      if (c && st.windows[c.window]?.active === paneId) only = paneId;
    }
    if (!urgent && !only) return this.scheduleTick();
    const first = !this.urgent;
    this.urgent ??= { all: false, panes: new Set() };
    if (only) this.urgent.panes.add(only);
    else this.urgent.all = true;
    if (!first || this.urgentTimer) return;
    const wait = this.lastUrgentAt + URGENT_GAP_MS - Date.now();
    if (wait > 0) {
      this.urgentTimer = setTimeout(() => this.flushUrgent(), wait);
      return;
    }
    // Right after the current callback (the whole pty read is parsed by then), not setImmediate: a turn of parsing
    // another pane's flood (parse-feed.ts) may already be queued there. nextTick, not queueMicrotask: no async resource.
    process.nextTick(() => this.flushUrgent());
  }

  private scheduleTick(): void {
    if (this.timer) return;
    const gap = this.flooding ? Math.max(this.frameMs(), FLOOD_FRAME_MS) : this.frameMs();
    this.tickIn(Math.max(0, this.lastFrameAt + gap - Date.now()));
  }

  private tickIn(ms: number): void {
    this.timer = setTimeout(() => {
      this.timer = undefined;
      // A key's echo is due within a millisecond (parse-feed.ts holds turns for it): building a flooding pane's
      // rows now (~0.5 ms) would make it wait. Its urgent frame goes first, the tick right after.
      const hold = this.parsing.echoDueIn();
      if (hold > 0) this.tickIn(hold);
      else this.flush();
    }, ms);
  }

  private flushUrgent(): void {
    if (this.urgentTimer) clearTimeout(this.urgentTimer);
    this.urgentTimer = undefined;
    const u = this.urgent;
    this.urgent = undefined;
    if (!u) return;
    this.lastUrgentAt = Date.now();
    this.flush(u.all ? undefined : u.panes);
  }

  /** Sends what changed: in every visible pane, or only in `only` (the others keep their changes for the next tick). */
  flush(only?: ReadonlySet<string>): void {
    if (this.conn.closed) return;
    const queued = this.conn.writableLength?.() ?? 0;
    if (queued > MAX_QUEUED) {
      if (!this.waitingDrain && this.conn.onDrain) {
        this.waitingDrain = true;
        this.conn.onDrain(() => {
          this.waitingDrain = false;
          this.schedule(true);
        });
      }
      return;
    }
    const frame = this.build(only);
    if (!only) this.lastFrameAt = Date.now();
    if (!frame) return;
    this.frames++;
    this.conn.send({ frame });
  }

  private build(only?: ReadonlySet<string>): Frame | undefined {
    const state = this.source.state();
    // Pane output does not change State: during a flood this skips rebuilding and re-serialising the view each frame.
    const fresh = this.viewOf?.state !== state;
    if (fresh) this.viewOf = { state, view: buildView(state, this.id) };
    const view = this.viewOf!.view;
    if (!view) return undefined;
    const frame: Frame = { panes: {}, cursor: null, mouse: false, copy: null };
    let changed = false;
    if (this.needReset) {
      frame.reset = true;
      this.needReset = false;
      changed = true;
    }
    if (fresh || this.sentView === '') {
      const viewJson = JSON.stringify(view);
      if (viewJson !== this.sentView) {
        frame.view = view;
        this.sentView = viewJson;
        changed = true;
      }
    }
    const visible = new Set<string>();
    let readBytes = 0;
    for (const pv of view.window.panes) {
      visible.add(pv.id);
      const rt = this.source.pane(pv.id);
      if (!rt) continue;
      if (!only) {
        const n = rt.bytesIn ?? 0;
        readBytes += n - (this.bytesAt.get(pv.id) ?? n);
        this.bytesAt.set(pv.id, n);
      }
      if (only && !only.has(pv.id) && !pv.focused) continue;
      const cs = this.copy.get(pv.id);
      const copied = cs ? renderCopy(rt.screen, cs, this.source.copyStyles()) : undefined;
      const rows = copied ? copied.rows : rt.screen.viewportRows();
      const { cols, rows: nrows } = rt.size;
      let sent = this.sentRows.get(pv.id);
      if (!sent || sent.cols !== cols || sent.rows !== nrows) {
        sent = { cols, rows: nrows, lines: [] };
        this.sentRows.set(pv.id, sent);
      }
      const lines: Array<[number, string]> = [];
      for (let y = 0; y < rows.length; y++) {
        if (sent.lines[y] !== rows[y]) {
          lines.push([y, rows[y]]);
          sent.lines[y] = rows[y];
        }
      }
      if (lines.length) {
        frame.panes[pv.id] = { cols, rows: nrows, lines };
        changed = true;
      }
      if (pv.focused && copied && cs) {
        frame.cursor = { pane: pv.id, x: copied.cursor.x, y: copied.cursor.y, visible: true, shape: 'block', blink: false };
        frame.copy = { pane: pv.id, keys: cs.keys, prompt: !!cs.prompt };
      } else if (pv.focused) {
        const c = rt.screen.cursor();
        frame.cursor = { pane: pv.id, x: c.x, y: c.y, visible: c.visible && !rt.exited, shape: c.shape, blink: c.blink, ...(c.isDefault ? { isDefault: true } : {}) };
        frame.mouse = rt.wantsMouse();
      }
    }
    if (!only) this.flooding = readBytes >= FLOOD_BYTES;
    // Panes no longer visible are forgotten, so they are sent whole when they come back.
    for (const id of this.sentRows.keys()) if (!visible.has(id)) this.sentRows.delete(id);
    for (const id of this.bytesAt.keys()) if (!visible.has(id)) this.bytesAt.delete(id);
    const cursorJson = JSON.stringify(frame.cursor);
    const copyJson = JSON.stringify(frame.copy);
    if (cursorJson !== this.sentCursor || frame.mouse !== this.sentMouse || copyJson !== this.sentCopy) changed = true;
    this.sentCopy = copyJson;
    this.sentCursor = cursorJson;
    this.sentMouse = frame.mouse;
    return changed ? frame : undefined;
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.urgentTimer) clearTimeout(this.urgentTimer);
    this.urgent = undefined;
  }
}
