// Style runs in the store (src/history/store.ts): a run is a first cell and an index into the chunk's palette, and a
// full chunk is frozen into the narrowest arrays. Output coloured word by word must stay compact, and every cell's
// colour and attributes must come back exactly: many styles per chunk, wide lines, Latin-1 and wider text, lines
// dropped from a frozen chunk and written again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { IBufferCell, IBufferLine } from '@xterm/headless';
import { ArchivedLine } from '../../src/history/index.js';
import { CHUNK, HistoryStore } from '../../src/history/store.js';
import { cellsOf as rawCells, encodeLine, rawLineAt } from '../../src/history/xterm-cells.js';
import { Screen } from '../../src/server/screen.js';
import { plainRow, serializeRow } from '../../src/server/sgr.js';
import { prng, reference, write } from './support.js';

const WORDS = ['const', 'return', 'diff', 'added', 'removed', 'error', 'ok', 'x', 'path/to/file.ts', 'café', 'ÿ×÷', '→', '漢字', '😀'];

/**
 * A line of `cols` columns, each word in a colour of its own. `theme`: as agent logs and diffs are coloured (16 colours,
 * bold, 256 colours, truecolour from a theme's two dozen); otherwise hundreds of distinct styles a chunk (any
 * truecolour, backgrounds, attributes piling up), which the palette must index past a byte.
 */
function denseLine(rnd: () => number, cols: number, words = WORDS, theme = false): string {
  const pick = (n: number) => Math.floor(rnd() * n);
  let out = '';
  let vis = 0;
  while (vis < cols - 4) {
    const r = rnd();
    if (theme) {
      out += r < 0.4 ? `\x1b[0;${31 + pick(7)}m` : r < 0.55 ? `\x1b[1;${31 + pick(7)}m` : r < 0.8 ? `\x1b[0;38;5;${pick(256)}m`
        : r < 0.95 ? `\x1b[0;38;2;${THEME[pick(THEME.length)]}m` : '\x1b[0;2m';
    } else {
      out += r < 0.3 ? `\x1b[${31 + pick(7)}m` : r < 0.4 ? `\x1b[1;${31 + pick(7)}m` : r < 0.6 ? `\x1b[38;5;${pick(256)}m`
        : r < 0.85 ? `\x1b[38;2;${pick(256)};${pick(256)};${pick(256)}m` : r < 0.9 ? `\x1b[4${pick(8)};3;9m` : r < 0.95 ? '\x1b[2;4;7m' : '\x1b[0m';
    }
    const w = words[pick(words.length)];
    out += w + ' ';
    vis += w.length * (/[漢字😀]/.test(w) ? 2 : 1) + 1;
  }
  return out + '\x1b[0m\r\n';
}
const THEME = Array.from({ length: 24 }, (_, i) => `${(i * 37) % 256};${(i * 91) % 256};${(i * 53) % 256}`);

/** Every attribute a renderer or copy mode can read from a cell, through xterm's public API. */
function attrs(line: { getCell(x: number, c: IBufferCell): IBufferCell | undefined; length: number }, cell: IBufferCell): string[] {
  const out: string[] = [];
  for (let x = 0; x < line.length; x++) {
    const c = line.getCell(x, cell);
    if (!c) { out.push('-'); continue; }
    out.push([
      // A blank written past the line's text and a cell never written read the same (trailing default blanks are
      // not stored; every renderer drops them).
      c.getChars() || ' ', c.getWidth(), c.getFgColorMode(), c.getFgColor(), c.getBgColorMode(), c.getBgColor(),
      // As booleans: xterm answers a flag with its bit, or 1 for an underline with an extended style (the store keeps
      // the underline, not its style, as before: rendered rows show a plain underline).
      ...[c.isBold(), c.isItalic(), c.isDim(), c.isUnderline(), c.isBlink(), c.isInverse(), c.isInvisible(), c.isStrikethrough(), c.isOverline()].map((f) => (f ? 1 : 0)),
    ].join('|'));
  }
  return out;
}

test('a 200-column line coloured word by word costs under 400 bytes in the store (it was ~610: 12 bytes a run)', async () => {
  const rnd = prng(34);
  const ascii = ['const', 'return', 'diff', 'added', 'removed', 'error', 'ok', 'value', 'path/to/file.ts', 'index'];
  let data = '';
  const N = 3000;
  for (let i = 0; i < N; i++) data += denseLine(rnd, 200, i % 20 === 7 ? [...ascii, '✓'] : ascii, true);
  const s = new Screen({ cols: 200, rows: 50, scrollback: 10_000 });
  try {
    await write(s, data);
    const v = s.lines();
    // Reading encodes what is pending; the store then holds every history line xterm no longer keeps.
    const stored = v.screenTop - 64;
    assert.ok(v.at(0) && stored > 2500, `lines were archived: ${stored}`);
    const perLine = s.historyBytes / stored;
    assert.ok(perLine < 400, `bytes per archived dense line: ${perLine.toFixed(0)}`);
  } finally {
    s.dispose();
  }
});

test('every cell comes back with its exact colour and attributes: many styles per chunk, wide lines, any text', async () => {
  for (const [seed, cols] of [[1, 200], [2, 300], [3, 80]] as const) {
    const rnd = prng(seed);
    let data = '';
    // Three chunks and more, with hundreds of truecolour styles each (indices past a byte) and, at 300 columns,
    // runs starting past cell 255.
    for (let i = 0; i < CHUNK * 3 + 40; i++) data += denseLine(rnd, cols);
    const s = new Screen({ cols, rows: 10, scrollback: 10_000 });
    const ref = reference(cols, 10, 10_000);
    try {
      await write(s, data);
      await write(ref, data);
      const v = s.lines();
      assert.equal(v.length, ref.buffer.active.length, 'line count');
      const a = s.scratchCell();
      const b = ref.buffer.active.getNullCell();
      for (let i = 0; i < v.length; i++) {
        const want = ref.buffer.active.getLine(i)!;
        const got = v.at(i)!;
        assert.deepEqual(attrs(got, a), attrs(want, b), `cells of line ${i}, ${cols} columns`);
        assert.equal(serializeRow(got, cols, a), serializeRow(want, cols, b), `styled row ${i}`);
        assert.equal(plainRow(got), plainRow(want), `text of line ${i}`);
      }
    } finally {
      s.dispose();
      ref.dispose();
    }
  }
});

test('Latin-1 lines are kept in bytes and read back exactly; lines with wider text, among them, keep 16-bit units', async () => {
  const t = reference(40, 3, 1000);
  try {
    // Latin-1 and wider lines mixed in every chunk, in runs of odd lengths (wide lines start at odd byte offsets).
    const isWide = (i: number) => i % 7 === 3 || i % 11 === 0;
    const line = (i: number) => (isWide(i) ? `\x1b[3${i % 8}mline ${i} → Ω 漢\x1b[0m\r\n` : `\x1b[3${i % 8}mcafé ÿ×÷ ${i}\x1b[0m\xa0end\r\n`);
    await write(t, Array.from({ length: 2 * CHUNK }, (_, i) => line(i)).join(''));
    const store = new HistoryStore();
    const b = t.buffer.normal;
    for (let y = 0; y < 2 * CHUNK; y++) encodeLine(rawCells(rawLineAt(b, y)), store);
    const cell = b.getNullCell();
    for (let y = 0; y < 2 * CHUNK; y++) {
      assert.equal(store.line(y)!.text.BYTES_PER_ELEMENT, isWide(y) ? 2 : 1, `line ${y}: Latin-1 in bytes, wider in 16 bits`);
    }
    for (let y = 0; y < 2 * CHUNK; y++) {
      const got = new ArchivedLine(store.line(y)!);
      const want = b.getLine(y) as IBufferLine;
      assert.equal(got.translateToString(true), want.translateToString(true), `text of line ${y}`);
      assert.deepEqual(attrs(got, cell), attrs(want, b.getNullCell()), `cells of line ${y}`);
    }
  } finally {
    t.dispose();
  }
});

test('lines dropped from a frozen chunk (a resize) and written again read back exactly, old styles and new', async () => {
  const t = reference(60, 3, 2000);
  try {
    const rnd = prng(5);
    let data = '';
    for (let i = 0; i < CHUNK * 2 + 10; i++) data += denseLine(rnd, 60);
    await write(t, data);
    const b = t.buffer.normal;
    const store = new HistoryStore();
    // Two full (frozen) chunks, then the newest 20 lines go back (the last chunk is frozen when they do).
    for (let y = 0; y < 2 * CHUNK; y++) encodeLine(rawCells(rawLineAt(b, y)), store);
    store.dropNewest(20);
    assert.equal(store.count, 2 * CHUNK - 20);
    // The same lines again, then more, into the thawed chunk and a new one.
    for (let y = 2 * CHUNK - 20; y < 2 * CHUNK + 10; y++) encodeLine(rawCells(rawLineAt(b, y)), store);
    assert.equal(store.count, 2 * CHUNK + 10);
    const a = b.getNullCell();
    const c = t.buffer.normal.getNullCell();
    for (let y = 0; y < store.count; y++) {
      const want = b.getLine(y) as IBufferLine;
      assert.deepEqual(attrs(new ArchivedLine(store.line(y)!), a), attrs(want, c), `cells of line ${y}`);
    }
    // Oldest chunks leave whole; what is left still reads back.
    store.dropOldest(CHUNK + 3);
    for (let i = 0; i < store.count; i++) {
      assert.deepEqual(attrs(new ArchivedLine(store.line(i)!), a), attrs(b.getLine(CHUNK + 3 + i) as IBufferLine, c), `after dropOldest, line ${i}`);
    }
  } finally {
    t.dispose();
  }
});

test('a chunk of more than 256 styles, most runs in a few of them, indexes runs in bytes; rare styles read back exactly', async () => {
  const t = reference(120, 3, 2000);
  try {
    // 256 colours used over and over, and 40 truecolour styles used once each: 296 styles a chunk.
    const rnd = prng(11);
    let data = '';
    for (let i = 0; i < CHUNK * 2; i++) {
      let line = '';
      for (let w = 0; w < 14; w++) {
        const rare = w === 3 && i % 6 === 0;
        line += (rare ? `\x1b[38;2;${i};${w};7m` : `\x1b[38;5;${Math.floor(rnd() * 256)}m`) + `w${w}\x1b[0m `;
      }
      data += line + '\r\n';
    }
    await write(t, data);
    const b = t.buffer.normal;
    const store = new HistoryStore();
    for (let y = 0; y < 2 * CHUNK; y++) encodeLine(rawCells(rawLineAt(b, y)), store);
    const first = store.line(0)!;
    assert.equal(first.runStyle.BYTES_PER_ELEMENT, 1, 'style indices in bytes');
    assert.ok(first.over && first.over.length > 0 && first.palette.length / 2 > 256, 'rare styles in the overflow list');
    const a = b.getNullCell(), c = t.buffer.normal.getNullCell();
    const check = (what: string) => {
      for (let y = 0; y < store.count; y++) {
        assert.deepEqual(attrs(new ArchivedLine(store.line(y)!), a), attrs(b.getLine(y) as IBufferLine, c), `${what}: cells of line ${y}`);
      }
    };
    check('frozen');
    // The newest lines go back and come again: the frozen chunk is made writable with every run's style.
    store.dropNewest(CHUNK + 5);
    for (let y = CHUNK - 5; y < 2 * CHUNK; y++) encodeLine(rawCells(rawLineAt(b, y)), store);
    check('after a resize');
  } finally {
    t.dispose();
  }
});
