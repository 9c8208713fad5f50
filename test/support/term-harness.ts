// Runs the real `castellan` in a real pty and reads what it draws back through an @xterm/headless terminal.
import { closeSync, constants, openSync } from 'node:fs';
import pty from '@lydell/node-pty';
import type { IPty } from '@lydell/node-pty';
import xterm from '@xterm/headless';
import type { Terminal as XTerm, IBufferCell } from '@xterm/headless';
import unicode11 from '@xterm/addon-unicode11';
import { BIN, type TempEnv } from './temp-env.js';
import { GiveUp, waitFor, type WaitForOptions } from './wait-for.js';

export { listPanes, paneById, readPane, waitForPane, type PaneInfo } from './api.js';

const { Terminal } = xterm;
const { Unicode11Addon } = unicode11;

/** The test shell's prompt (PS1='$ ') at the start of a row; rows are matched with trailing blanks trimmed. */
export const PROMPT_RE = /^\$(?: |$)/;

/** Bytes a real terminal sends for some keys. */
export const KEY = {
  prefix: '\x02',
  enter: '\r',
  escape: '\x1b',
  tab: '\t',
  backspace: '\x7f',
  ctrlC: '\x03',
  ctrlD: '\x04',
  up: '\x1b[A',
  down: '\x1b[B',
  right: '\x1b[C',
  left: '\x1b[D',
} as const;

export type ColorMode = 'default' | 'palette' | 'rgb';

export interface CellInfo {
  char: string;
  width: number;
  /** Palette index (0-255) or 0xRRGGBB, by fgMode. */
  fg: number;
  fgMode: ColorMode;
  bg: number;
  bgMode: ColorMode;
  bold: boolean;
  dim: boolean;
  italic: boolean;
  underline: boolean;
  inverse: boolean;
}

/** Screen columns are 0-based cells, rows 0-based from the top of the visible screen; right/bottom exclusive. */
export interface Region {
  left?: number;
  right?: number;
  top?: number;
  bottom?: number;
}

export interface Match {
  x: number;
  y: number;
  text: string;
}

/** A pane border on screen: outer rect (0-based cells) and the inner region the pane's screen is drawn in. */
export interface PaneFrameBox {
  /** `p1`, `p2`, ... as the border shows it. */
  label: string;
  x: number;
  y: number;
  w: number;
  h: number;
  inner: Required<Region>;
}

export interface TermOptions {
  cols?: number;
  rows?: number;
  /** Arguments after bin/castellan.js (default: none, i.e. attach). */
  args?: string[];
  cwd?: string;
  /** Extra environment on top of env.env. */
  env?: Record<string, string>;
}

export interface WaitTextOptions extends Omit<WaitForOptions, 'observe'> {
  region?: Region;
}

function colorMode(isDefault: boolean, isRgb: boolean): ColorMode {
  return isDefault ? 'default' : isRgb ? 'rgb' : 'palette';
}

export class TermHarness {
  readonly term: XTerm;
  readonly proc: IPty;
  /** Everything the program wrote, as text. */
  output = '';
  exit: { exitCode: number; signal?: number } | undefined;
  private lastWrite: Promise<void> = Promise.resolve();
  private readonly exited: Promise<{ exitCode: number; signal?: number }>;
  private slave = -1;
  private disposed = false;

  private constructor(
    readonly env: TempEnv,
    o: TermOptions,
  ) {
    const cols = o.cols ?? 100;
    const rows = o.rows ?? 30;
    this.term = new Terminal({ cols, rows, scrollback: 1000, allowProposedApi: true });
    // The same widths castellan's server uses, so emoji and CJK line up the same way.
    this.term.loadAddon(new Unicode11Addon());
    this.term.unicode.activeVersion = '11';
    this.proc = pty.spawn(process.execPath, [BIN, ...(o.args ?? [])], {
      name: 'xterm-256color',
      cols,
      rows,
      cwd: o.cwd ?? env.home,
      env: { ...env.env, ...o.env },
    });
    // Keeping the slave side open means the last bytes written before the program exits are not thrown away.
    try {
      this.slave = openSync((this.proc as unknown as { ptsName: string }).ptsName, constants.O_RDWR | constants.O_NOCTTY);
    } catch {
      this.slave = -1;
    }
    this.proc.onData((d) => {
      this.output += d;
      this.lastWrite = new Promise((resolve) => this.term.write(d, resolve));
    });
    // A real terminal answers queries (device attributes, cursor position): so does this one.
    this.term.onData((d) => {
      if (!this.exit && !this.disposed) this.proc.write(d);
    });
    this.exited = new Promise((resolve) => {
      this.proc.onExit((e) => {
        this.exit = e;
        this.closeSlave();
        resolve(e);
      });
    });
  }

  /** Starts `castellan ARGS` in a pty of the given size; it is killed when the env is cleaned up. */
  static start(env: TempEnv, o: TermOptions = {}): TermHarness {
    const h = new TermHarness(env, o);
    env.onCleanup(() => h.kill());
    return h;
  }

  get cols(): number {
    return this.term.cols;
  }

  get rows(): number {
    return this.term.rows;
  }

  private closeSlave(): void {
    if (this.slave < 0) return;
    try {
      closeSync(this.slave);
    } catch {
      /* closed */
    }
    this.slave = -1;
  }

  /** Types bytes as the keyboard would. */
  write(data: string): void {
    if (!this.exit) this.proc.write(data);
  }

  /** The prefix (C-b) followed by `key`. */
  prefix(key: string): void {
    this.write(KEY.prefix + key);
  }

  /** Resolves once everything received so far has been parsed by the terminal. */
  async settle(): Promise<void> {
    let p: Promise<void>;
    do {
      p = this.lastWrite;
      await p;
    } while (p !== this.lastWrite);
  }

  /** Text of one visible row, cell by cell (a wide char's second cell adds nothing); `cols[i]` is the column of text[i]. */
  private rowCells(y: number): { text: string; cols: number[] } {
    const b = this.term.buffer.active;
    const line = b.getLine(b.viewportY + y);
    let text = '';
    const cols: number[] = [];
    if (!line) return { text, cols };
    const cell = b.getNullCell();
    for (let x = 0; x < this.term.cols; x++) {
      line.getCell(x, cell);
      if (cell.getWidth() === 0) continue;
      const ch = cell.getChars() || ' ';
      for (let i = 0; i < ch.length; i++) cols.push(x);
      text += ch;
    }
    return { text, cols };
  }

  /** Visible rows as text (trailing spaces trimmed), after parsing everything received. */
  async screenText(): Promise<string[]> {
    await this.settle();
    return this.screenNow();
  }

  /** Visible rows without waiting for the parser (for failure messages from sync code). */
  screenNow(): string[] {
    const b = this.term.buffer.active;
    const out: string[] = [];
    for (let y = 0; y < this.term.rows; y++) out.push(b.getLine(b.viewportY + y)?.translateToString(true) ?? '');
    return out;
  }

  /** Text of a region, one string per row (trailing spaces trimmed). */
  async regionText(r: Region): Promise<string[]> {
    await this.settle();
    return this.regionNow(r);
  }

  regionNow(r: Region): string[] {
    const b = this.term.buffer.active;
    const top = r.top ?? 0;
    const bottom = Math.min(r.bottom ?? this.term.rows, this.term.rows);
    const out: string[] = [];
    for (let y = top; y < bottom; y++) out.push((b.getLine(b.viewportY + y)?.translateToString(true, r.left ?? 0, r.right ?? this.term.cols) ?? '').trimEnd());
    return out;
  }

  /** Every match of `pattern` inside `region`, with its screen position. */
  async find(pattern: string | RegExp, region: Region = {}): Promise<Match[]> {
    await this.settle();
    return this.findNow(pattern, region);
  }

  private findNow(pattern: string | RegExp, region: Region): Match[] {
    const out: Match[] = [];
    const top = region.top ?? 0;
    const bottom = Math.min(region.bottom ?? this.term.rows, this.term.rows);
    const left = region.left ?? 0;
    const right = region.right ?? this.term.cols;
    for (let y = top; y < bottom; y++) {
      const { text, cols } = this.rowCells(y);
      const idx = cols.findIndex((c) => c >= left);
      if (idx < 0) continue;
      let end = cols.findIndex((c) => c >= right);
      if (end < 0) end = text.length;
      // Trailing blanks trimmed, as in screenText(), so `$` in a pattern means "end of the text on this row".
      const part = text.slice(idx, end).trimEnd();
      if (typeof pattern === 'string') {
        for (let i = part.indexOf(pattern); i !== -1; i = part.indexOf(pattern, i + 1)) out.push({ x: cols[idx + i], y, text: pattern });
      } else {
        const re = new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : pattern.flags + 'g');
        for (const m of part.matchAll(re)) {
          out.push({ x: cols[idx + (m.index ?? 0)], y, text: m[0] });
          if (m[0] === '') break;
        }
      }
    }
    return out;
  }

  /**
   * The pane borders on screen, found from their top-left corner and ` pN ` label: outer rect and the inner
   * region (where the pane's own screen is drawn). Sorted by label.
   */
  async frames(): Promise<PaneFrameBox[]> {
    await this.settle();
    return this.framesNow();
  }

  framesNow(): PaneFrameBox[] {
    const out: PaneFrameBox[] = [];
    const rows = this.term.rows;
    const cellsOf = (y: number) => this.rowCells(y);
    for (let y = 0; y < rows; y++) {
      const { text, cols } = cellsOf(y);
      for (const m of text.matchAll(/╭ (?:w\d+:)?(?:p\d+→)?(?:w\d+:)?(p\d+) /g)) {
        const x = cols[m.index ?? 0];
        const rightIdx = text.indexOf('╮', (m.index ?? 0) + 1);
        if (rightIdx < 0) continue;
        const right = cols[rightIdx];
        let bottom = -1;
        for (let yy = y + 1; yy < rows; yy++) {
          const r = cellsOf(yy);
          const i = r.cols.indexOf(x);
          if (i >= 0 && r.text[i] === '╰') {
            bottom = yy;
            break;
          }
        }
        if (bottom < 0) continue;
        out.push({ label: m[1], x, y, w: right - x + 1, h: bottom - y + 1, inner: { left: x + 1, right, top: y + 1, bottom } });
      }
    }
    return out.sort((a, b) => Number(a.label.slice(1)) - Number(b.label.slice(1)));
  }

  /** Waits for the frame labelled `label` (e.g. "p2") and returns it. */
  async waitForFrame(label: string, o: Omit<WaitForOptions, 'observe'> & { where?: (f: PaneFrameBox) => boolean } = {}): Promise<PaneFrameBox> {
    return waitFor(
      () => this.check(() => this.framesNow().find((f) => f.label === label && (!o.where || o.where(f)))),
      { timeoutMs: o.timeoutMs ?? 5000, intervalMs: o.intervalMs ?? 20, message: o.message ?? `frame ${label} on screen`, observe: () => `${JSON.stringify(this.framesNow())}\n${this.describe()}` },
    );
  }

  /** A dump of the screen for failure messages: numbered rows plus the harness state. */
  describe(): string {
    const rows = this.screenNow().map((l, i) => `${String(i).padStart(3)}|${l}`);
    const b = this.term.buffer.active;
    return `screen ${this.term.cols}x${this.term.rows} (${b.type} buffer, cursor ${b.cursorX},${b.cursorY})${this.exit ? `, exited ${JSON.stringify(this.exit)}` : ''}:\n${rows.join('\n')}`;
  }

  /**
   * One check of a screen condition, after parsing everything received. Once castellan has exited the
   * screen can no longer change, so a condition that does not hold then gives up at once instead of
   * waiting out its deadline.
   */
  private async check<T>(cond: () => T): Promise<T> {
    const exitedBefore = !!this.exit;
    await this.settle();
    const v = cond();
    if (!v && exitedBefore) throw new GiveUp(`castellan exited (${JSON.stringify(this.exit)}) and the condition does not hold`);
    return v;
  }

  /** Waits until `pattern` shows up (in `region`); resolves with its first match. */
  async waitForText(pattern: string | RegExp, o: WaitTextOptions = {}): Promise<Match> {
    return waitFor(
      () => this.check(() => this.findNow(pattern, o.region ?? {})[0]),
      { timeoutMs: o.timeoutMs ?? 5000, intervalMs: o.intervalMs ?? 20, message: o.message ?? `text ${String(pattern)} on screen${o.region ? ` in ${JSON.stringify(o.region)}` : ''}`, observe: () => this.describe() },
    );
  }

  /** Waits until `pattern` is nowhere (in `region`). */
  async waitForNoText(pattern: string | RegExp, o: WaitTextOptions = {}): Promise<void> {
    await waitFor(
      () => this.check(() => this.findNow(pattern, o.region ?? {}).length === 0),
      { timeoutMs: o.timeoutMs ?? 5000, intervalMs: o.intervalMs ?? 20, message: o.message ?? `text ${String(pattern)} gone from the screen`, observe: () => this.describe() },
    );
  }

  /** Waits until `pred(screen rows)` returns something truthy; resolves with it. */
  async waitForScreen<T>(pred: (lines: string[]) => T, o: Omit<WaitForOptions, 'observe'> = {}): Promise<NonNullable<T>> {
    return waitFor(
      () => this.check(() => pred(this.screenNow())),
      { timeoutMs: o.timeoutMs ?? 5000, intervalMs: o.intervalMs ?? 20, message: o.message ?? 'screen condition', observe: () => this.describe() },
    );
  }

  /** Colours and attributes of one cell of the visible screen. */
  async cellAt(x: number, y: number): Promise<CellInfo> {
    await this.settle();
    return this.cellNow(x, y);
  }

  cellNow(x: number, y: number): CellInfo {
    const b = this.term.buffer.active;
    const c: IBufferCell | undefined = b.getLine(b.viewportY + y)?.getCell(x);
    if (!c) throw new RangeError(`no cell at ${x},${y} in a ${this.term.cols}x${this.term.rows} screen`);
    return {
      char: c.getChars(),
      width: c.getWidth(),
      fg: c.getFgColor(),
      fgMode: colorMode(c.isFgDefault(), c.isFgRGB()),
      bg: c.getBgColor(),
      bgMode: colorMode(c.isBgDefault(), c.isBgRGB()),
      bold: !!c.isBold(),
      dim: !!c.isDim(),
      italic: !!c.isItalic(),
      underline: !!c.isUnderline(),
      inverse: !!c.isInverse(),
    };
  }

  /** Cursor position on the visible screen (0-based). */
  async cursor(): Promise<{ x: number; y: number }> {
    await this.settle();
    const b = this.term.buffer.active;
    return { x: b.cursorX, y: b.cursorY + b.baseY - b.viewportY };
  }

  /** Waits until the outer terminal's cursor is at (x, y). */
  async waitForCursor(x: number, y: number, o: Omit<WaitForOptions, 'observe'> = {}): Promise<void> {
    let last = { x: -1, y: -1 };
    await waitFor(
      () =>
        this.check(() => {
          const b = this.term.buffer.active;
          last = { x: b.cursorX, y: b.cursorY + b.baseY - b.viewportY };
          return last.x === x && last.y === y;
        }),
      { timeoutMs: o.timeoutMs ?? 5000, intervalMs: o.intervalMs ?? 20, message: o.message ?? `cursor at ${x},${y}`, observe: () => `cursor at ${last.x},${last.y}\n${this.describe()}` },
    );
  }

  /** Which buffer the outer terminal shows ('alternate' while castellan is attached). */
  async bufferType(): Promise<'normal' | 'alternate'> {
    await this.settle();
    return this.term.buffer.active.type;
  }

  /** Resizes the outer terminal: the emulator first, then the pty (which sends SIGWINCH). */
  resize(cols: number, rows: number): void {
    this.term.resize(cols, rows);
    if (!this.exit) this.proc.resize(cols, rows);
  }

  /** Resolves with the exit status once the program has exited (and its output is parsed). */
  async waitForExit(timeoutMs = 5000): Promise<{ exitCode: number; signal?: number }> {
    let timer: NodeJS.Timeout | undefined;
    try {
      const e = await Promise.race([
        this.exited,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`castellan did not exit within ${timeoutMs} ms\n${this.describe()}`)), timeoutMs);
        }),
      ]);
      await this.settle();
      return e;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Ends the program (SIGTERM, then SIGKILL) and frees the emulator. Idempotent. */
  async kill(): Promise<void> {
    if (this.disposed) return;
    if (!this.exit) {
      try {
        this.proc.kill('SIGTERM');
      } catch {
        /* gone */
      }
      try {
        await this.waitForExit(2000);
      } catch {
        try {
          process.kill(this.proc.pid, 'SIGKILL');
        } catch {
          /* gone */
        }
        await this.waitForExit(2000).catch(() => undefined);
      }
    }
    this.disposed = true;
    this.closeSlave();
    this.term.dispose();
  }
}

/** A screen castellan has drawn: a pane border, the bar's first tab, and (by default) a shell prompt in a pane. */
export function looksAttached(lines: string[], o: { prompt?: boolean } = {}): boolean {
  return lines.some((l) => /╭ (?:w\d+:)?(?:p\d+→)?(?:w\d+:)?p\d+ /.test(l)) && /(^| )1:/.test(lines[lines.length - 1] ?? '') && (o.prompt === false || lines.some((l) => /│\$ /.test(l)));
}

/** Starts castellan attached in a pty and waits until it has drawn a pane (with a shell prompt, unless `prompt: false`) and the bar. */
export async function startAttached(env: TempEnv, o: TermOptions & { timeoutMs?: number; prompt?: boolean } = {}): Promise<TermHarness> {
  const h = TermHarness.start(env, o);
  try {
    await h.waitForScreen((lines) => looksAttached(lines, o), { timeoutMs: o.timeoutMs ?? 8000, message: 'castellan to draw a pane, the bar and a prompt' });
  } catch (e) {
    throw new Error(`${(e as Error).message}\n--- server log ---\n${env.logTail()}`);
  }
  return h;
}
