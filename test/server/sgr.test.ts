// Tests for the row serializer: exact SGR output, round-trips through a second terminal, safety, speed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import xterm from '@xterm/headless';
import type { Terminal as XTerm, IBufferCell, IBufferLine } from '@xterm/headless';
import unicode11 from '@xterm/addon-unicode11';
import { serializeRow, serializeRows, plainRow, stripControls } from '../../src/server/sgr.js';

const { Terminal } = xterm;
const { Unicode11Addon } = unicode11;

function makeTerm(cols: number, rows: number): XTerm {
  const t = new Terminal({ cols, rows, scrollback: 0, allowProposedApi: true });
  t.loadAddon(new Unicode11Addon());
  t.unicode.activeVersion = '11';
  return t;
}
const write = (t: XTerm, data: string) => new Promise<void>((resolve) => t.write(data, resolve));

async function rowsOf(data: string, cols = 40, rows = 3): Promise<string[]> {
  const t = makeTerm(cols, rows);
  await write(t, data);
  const out = serializeRows(t, t.buffer.active.viewportY, rows);
  t.dispose();
  return out;
}

// Every public attribute of a cell, for comparing two screens.
function describeCell(c: IBufferCell): string {
  const colour = (def: boolean, rgb: boolean, n: number) => (def ? 'd' : rgb ? `rgb${n}` : `p${n}`);
  return [
    c.getChars() || ' ', c.getWidth(),
    c.isBold() ? 'B' : '', c.isDim() ? 'D' : '', c.isItalic() ? 'I' : '', c.isUnderline() ? 'U' : '',
    c.isBlink() ? 'K' : '', c.isInverse() ? 'R' : '', c.isInvisible() ? 'H' : '', c.isStrikethrough() ? 'S' : '',
    c.isOverline() ? 'O' : '',
    colour(c.isFgDefault(), c.isFgRGB(), c.getFgColor()), colour(c.isBgDefault(), c.isBgRGB(), c.getBgColor()),
  ].join('|');
}
function describeScreen(t: XTerm): string[] {
  const b = t.buffer.active;
  const cell = b.getNullCell();
  const out: string[] = [];
  for (let y = 0; y < t.rows; y++) {
    const line = b.getLine(b.viewportY + y)!;
    for (let x = 0; x < t.cols; x++) out.push(`${y},${x}:${describeCell(line.getCell(x, cell)!)}`);
  }
  return out;
}

// Screen A -> row strings -> screen B must give identical cells.
async function roundTrip(data: string, cols: number, rows: number): Promise<string[]> {
  const a = makeTerm(cols, rows);
  await write(a, data);
  const serialized = serializeRows(a, a.buffer.active.viewportY, rows);
  const b = makeTerm(cols, rows);
  await write(b, serialized.map((r, y) => `\x1b[${y + 1};1H\x1b[0m${r}`).join(''));
  assert.deepEqual(describeScreen(b), describeScreen(a));
  a.dispose();
  b.dispose();
  return serialized;
}

// Deterministic PRNG so a failing seed can be replayed.
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => { s = (s * 1664525 + 1013904223) >>> 0; return s / 2 ** 32; };
}
const TEXTS = ['a', 'Z', '7', ' ', '漢', '👍', 'e\u0301', '·', '─', 'λ', '👩‍💻'];
function randomScreen(seed: number, cols: number, rows: number): string {
  const r = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const colour = (base: number) => pick([
    () => `${base + 9}`, () => `${base + Math.floor(r() * 8)}`, () => `${base + 60 + Math.floor(r() * 8)}`,
    () => `${base + 8};5;${Math.floor(r() * 256)}`,
    () => `${base + 8};2;${Math.floor(r() * 256)};${Math.floor(r() * 256)};${Math.floor(r() * 256)}`,
  ])();
  const attrs = ['1', '2', '3', '4', '5', '7', '8', '9', '53', '22', '23', '24', '25', '27', '28', '29', '55', '0'];
  let s = '';
  for (let y = 0; y < rows; y++) {
    s += `\x1b[${y + 1};1H`;
    for (let i = 0; i < cols * 0.9; i++) {
      if (r() < 0.3) s += `\x1b[${pick(attrs)};${colour(30)};${colour(40)}m`;
      s += pick(TEXTS);
    }
  }
  return s;
}

test('plain text comes out as-is, trailing default blanks dropped', async () => {
  assert.deepEqual(await rowsOf('hello world   \r\n\r\n  indented'), ['hello world', '', '  indented']);
});

test('16, 256 and truecolor colours', async () => {
  await roundTrip('\x1b[31mr\x1b[91mR\x1b[42mg\x1b[0m\x1b[102mG\x1b[38;5;200mp\x1b[48;2;1;2;3mt\x1b[0m.', 20, 2);
  const [fg16] = await rowsOf('\x1b[34mblue\x1b[0m');
  assert.equal(fg16, '\x1b[34mblue\x1b[0m');
  const [bright] = await rowsOf('\x1b[95;103mx\x1b[0m');
  assert.equal(bright, '\x1b[95;103mx\x1b[0m');
  const [p256] = await rowsOf('\x1b[38;5;208;48;5;17mx\x1b[0m');
  assert.equal(p256, '\x1b[38;5;208;48;5;17mx\x1b[0m');
  const [rgb] = await rowsOf('\x1b[38;2;255;128;0;48;2;0;0;1mx\x1b[0m');
  assert.equal(rgb, '\x1b[38;2;255;128;0;48;2;0;0;1mx\x1b[0m');
});

test('only the changed part of the style is emitted while attributes accumulate', async () => {
  const [row] = await rowsOf('\x1b[31mab\x1b[32mcd\x1b[1mef\x1b[22mgh\x1b[0mij');
  assert.equal(row, '\x1b[31mab\x1b[32mcd\x1b[1mef\x1b[0;32mgh\x1b[0mij');
});

test('bold, dim, italic, underline, blink, inverse, invisible, strikethrough, overline', async () => {
  const cases: Array<[string, string]> = [
    ['1', '1'], ['2', '2'], ['3', '3'], ['4', '4'], ['5', '5'], ['7', '7'], ['8', '8'], ['9', '9'], ['53', '53'],
  ];
  for (const [input, expected] of cases) {
    const [row] = await rowsOf(`a\x1b[${input}mb\x1b[0mc`);
    assert.equal(row, `a\x1b[${expected}mb\x1b[0mc`, `SGR ${input}`);
  }
  const [all] = await rowsOf('\x1b[1;3;4;9;31;44mx\x1b[0m');
  assert.equal(all, '\x1b[1;3;4;9;31;44mx\x1b[0m');
});

test('wide characters, emoji and combining marks are emitted once', async () => {
  const [row] = await rowsOf('漢字 👍 e\u0301 👩‍💻!');
  assert.equal(row, '漢字 👍 e\u0301 👩‍💻!');
  await roundTrip('\x1b[31m漢\x1b[0m字\x1b[44m👍\x1b[0m e\u0301', 12, 1);
});

test('trailing blanks: default ones dropped, coloured background and inverse kept', async () => {
  const [a, b, c] = await rowsOf('x\x1b[41m   \x1b[0m   \r\ny\x1b[7m  \x1b[0m\r\nz\x1b[44m\x1b[K');
  assert.equal(a, 'x\x1b[41m   \x1b[0m');
  assert.equal(b, 'y\x1b[7m  \x1b[0m');
  // Erase-in-line with a background fills the rest of the row with it: all of it must be kept.
  assert.equal(c, 'z\x1b[44m' + ' '.repeat(39) + '\x1b[0m');
});

test('default blanks between styled runs are written before the next style', async () => {
  const [row] = await rowsOf('\x1b[31ma\x1b[0m   \x1b[32mb\x1b[0m');
  assert.equal(row, '\x1b[31ma\x1b[0m   \x1b[32mb\x1b[0m');
  await roundTrip('\x1b[31ma\x1b[0m   \x1b[32mb\x1b[0m', 10, 1);
});

test('random styled screens round-trip cell for cell', async () => {
  for (let seed = 1; seed <= 25; seed++) {
    const rows = await roundTrip(randomScreen(seed, 30, 6), 30, 6);
    for (const row of rows) {
      assert.doesNotMatch(row.replace(/\x1b\[[0-9;]*m/g, ''), /[\x00-\x1f\x7f-\x9f]/, `seed ${seed}`);
    }
  }
});

test('plainRow trims written and unwritten trailing spaces', async () => {
  const t = makeTerm(20, 1);
  await write(t, 'ab  ');
  assert.equal(plainRow(t.buffer.active.getLine(0)), 'ab');
  assert.equal(plainRow(undefined), '');
  t.dispose();
});

// A frame like a busy agent pane: syntax-highlight-sized runs of 256/truecolour text, with bold.
function denseFrame(cols: number, rows: number, runLength: number): string {
  let s = '';
  for (let y = 0; y < rows; y++) {
    for (let x = 0; x < cols; x++) {
      if (x % runLength === 0) {
        const k = (x * 7 + y * 13) & 255;
        s += k & 1 ? `\x1b[${k & 2 ? 1 : 22};38;5;${k}m` : `\x1b[22;38;2;${k};${255 - k};${(k * 3) & 255};48;5;${(k >> 2) + 16}m`;
      }
      s += String.fromCharCode(33 + ((x + y) % 90));
    }
    if (y < rows - 1) s += '\x1b[0m\r\n';
  }
  return s;
}

async function benchFrame(runLength: number): Promise<{ median: number; cpuMs: number; bytes: number }> {
  const t = makeTerm(200, 50);
  await write(t, denseFrame(200, 50, runLength));
  const frame = () => serializeRows(t, t.buffer.active.viewportY, 50);
  for (let i = 0; i < 50; i++) frame();
  const times: number[] = [];
  // CPU time, not the wall clock: on a loaded machine (helpers, CI neighbours) the wall clock stretches ~5x while
  // the serializer's own work does not, and that work is what the bound is about.
  const c0 = process.cpuUsage();
  for (let i = 0; i < 200; i++) {
    const t0 = performance.now();
    frame();
    times.push(performance.now() - t0);
  }
  const c = process.cpuUsage(c0);
  times.sort((a, b) => a - b);
  const bytes = frame().join('').length;
  t.dispose();
  return { median: times[times.length >> 1], cpuMs: (c.user + c.system) / 1000 / 200, bytes };
}

test('micro-benchmark: dense 200x50 frame', async (t) => {
  for (const runLength of [8, 1]) {
    const { median, cpuMs, bytes } = await benchFrame(runLength);
    t.diagnostic(`200x50, style change every ${runLength} cell(s): median ${median.toFixed(3)} ms/frame wall, ${cpuMs.toFixed(3)} ms CPU, ${bytes} chars`);
    assert.ok(cpuMs < 20, `serializing took ${cpuMs} ms of CPU a frame (wall median ${median} ms)`);
  }
});

// Last on purpose: the fake cell makes the serializer's call sites polymorphic, which would skew the
// micro-benchmark if it ran first.
test('control characters can never be emitted, whatever a cell holds', () => {
  const texts = ['a', '\x1b', '\x07', '\x9b', 'x\x1b[2Jy', '', 'b'];
  const fake = (i: number) => ({
    getWidth: () => 1, getChars: () => texts[i], getCode: () => 0,
    isAttributeDefault: () => i !== 6, isBold: () => (i === 6 ? 1 : 0),
    isDim: () => 0, isItalic: () => 0, isUnderline: () => 0, isBlink: () => 0, isInverse: () => 0,
    isInvisible: () => 0, isStrikethrough: () => 0, isOverline: () => 0,
    getFgColorMode: () => 0, getBgColorMode: () => 0, getFgColor: () => -1, getBgColor: () => -1,
    isFgDefault: () => true, isBgDefault: () => true, isFgRGB: () => false, isBgRGB: () => false,
    isFgPalette: () => false, isBgPalette: () => false,
  });
  let current = 0;
  const cell = new Proxy({} as IBufferCell, { get: (_t, k) => (fake(current) as Record<string | symbol, unknown>)[k] });
  const line: IBufferLine = {
    isWrapped: false, length: texts.length,
    getCell: (x) => { current = x; return cell; },
    translateToString: () => texts.join(''),
  };
  const row = serializeRow(line, texts.length, cell);
  assert.equal(row, 'a\uFFFD\uFFFD\uFFFDx\uFFFD[2Jy \x1b[1mb\x1b[0m');
  assert.equal(plainRow(line), 'a\uFFFD\uFFFD\uFFFDx\uFFFD[2Jyb');
  assert.equal(stripControls('t\x1bi\x7ft\u0085le', ''), 'title');
});
