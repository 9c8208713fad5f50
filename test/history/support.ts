// Shared by the history tests: a reference xterm keeping all history itself, and text that exercises every cell shape.
import xterm from '@xterm/headless';
import unicode11 from '@xterm/addon-unicode11';
import { cellStyle, plainRow, serializeRow } from '../../src/server/sgr.js';
import type { Screen } from '../../src/server/screen.js';

export const write = (t: { write(d: string, cb: () => void): void }, data: string) => new Promise<void>((r) => t.write(data, r));

/** An xterm configured as Screen's, but holding `scrollback` lines itself: what rendering was before the store. */
export function reference(cols: number, rows: number, scrollback: number): xterm.Terminal {
  const t = new xterm.Terminal({ cols, rows, scrollback, allowProposedApi: true });
  t.loadAddon(new unicode11.Unicode11Addon());
  t.unicode.activeVersion = '11';
  return t;
}

/** Every line of the reference (history + screen) as [plain, ansi at `cols`, wrapped]. */
export function referenceLines(t: xterm.Terminal): Array<[string, string, boolean]> {
  const b = t.buffer.active;
  const cell = b.getNullCell();
  const out: Array<[string, string, boolean]> = [];
  for (let y = 0; y < b.length; y++) {
    const line = b.getLine(y)!;
    out.push([plainRow(line), serializeRow(line, t.cols, cell), line.isWrapped]);
  }
  return out;
}

/** The same for a Screen, through lines() (archived lines rendered by the store, the rest by xterm). */
export function screenLines(s: Screen): Array<[string, string, boolean]> {
  const v = s.lines();
  const cell = s.scratchCell();
  const out: Array<[string, string, boolean]> = [];
  for (let i = 0; i < v.length; i++) {
    const line = v.at(i)!;
    out.push([plainRow(line), serializeRow(line, s.cols, cell), line.isWrapped]);
  }
  return out;
}

/** A deterministic pseudo-random generator (tests must not depend on Math.random). */
export function prng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13; x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5; x >>>= 0;
    return x / 0x100000000;
  };
}

const SGR = [
  '1', '2', '3', '4', '5', '7', '8', '9', '53', '4:3', '21', '22', '23', '24', '27', '29', '0', '39', '49',
  '31', '42', '93', '104', '38;5;196', '48;5;22', '38;5;7', '38;2;255;128;0', '48;2;1;2;3', '58;2;9;9;9', '4;58;5;3',
];
const TEXT = [
  'plain', 'words', 'café', 'naïve', '漢字', '日本語', '한국어', '✓', '→', '😀', '👍🏽', '👨‍👩‍👧', '❤️', 'e\u0301', 'a\u0300\u0301\u0302',
  '\u200b', 'ﷺ', '𝔘𝔫𝔦', '\t', '  ', 'x'.repeat(30), '—', 'Ω', '\u00ad', '\u0e01\u0e34', 'ｗｉｄｅ',
];

/** One line of hostile-but-legal terminal output: SGR, wide and combining text, hyperlinks, erases, tabs. */
export function randomLine(rnd: () => number, maxWords: number): string {
  const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)];
  let out = '';
  const n = 1 + Math.floor(rnd() * maxWords);
  for (let i = 0; i < n; i++) {
    const r = rnd();
    if (r < 0.35) out += `\x1b[${pick(SGR)}m`;
    else if (r < 0.38) out += `\x1b]8;;https://example.com/${i}\x1b\\link\x1b]8;;\x1b\\`;
    else if (r < 0.41) out += '\x1b[K'; // erase to the end (with the current background)
    else if (r < 0.43) out += `\x1b[${1 + Math.floor(rnd() * 3)}X`; // erase characters
    out += pick(TEXT) + ' ';
  }
  return out + (rnd() < 0.5 ? '\x1b[0m' : '');
}

/** What copy mode reads cell by cell (text, width, style, text up to each column), for one line of each. */
export function cellsOf(line: { length: number; getCell(x: number, c: xterm.IBufferCell): unknown; translateToString(t?: boolean, a?: number, b?: number): string }, cols: number, cell: xterm.IBufferCell): string[] {
  const out: string[] = [];
  for (let x = 0; x < cols; x++) {
    if (!line.getCell(x, cell)) { out.push('-'); continue; }
    out.push(`${cell.getWidth()}|${cell.getChars() || ' '}|${cellStyle(cell)}|${line.translateToString(false, 0, x)}`);
  }
  return out;
}
