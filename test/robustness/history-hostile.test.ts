// Hostile output against the history store: one huge line, escape-only lines, resizes mid-flood, 1 column, a colour per cell.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Screen } from '../../src/server/screen.js';
import { write } from '../history/support.js';

const MB = 1024 * 1024;

test('a 10 MB line without a newline wraps into rows kept to the limit, in bounded memory', { timeout: 120_000 }, async () => {
  const s = new Screen({ cols: 200, rows: 50, scrollback: 10_000 });
  const chunk = 'abcdefghij漢字'.repeat(6000); // ~72 k columns a write
  let written = 0;
  while (written < 10 * MB) {
    await write(s, chunk);
    written += Buffer.byteLength(chunk);
  }
  const v = s.lines();
  assert.equal(v.length, 10_000 + 50, 'the limit of history rows, then the screen');
  assert.ok(v.at(0)!.isWrapped, 'every row continues the one line');
  // 200 columns of text in 2-byte units, plus shapes for the wide characters: about 800 bytes a row.
  assert.ok(s.historyBytes < 10_000 * 1000, `history holds ${(s.historyBytes / MB).toFixed(1)} MB`);
  assert.equal(s.readLines({ lines: 3 }).length, 3);
  s.dispose();
});

test('lines of nothing but escape sequences cost next to nothing and read back empty', async () => {
  const s = new Screen({ cols: 80, rows: 10, scrollback: 5000 });
  await write(s, '\x1b[31m\x1b[1;4m\x1b]8;;http://x\x1b\\\x1b]8;;\x1b\\\x1b[0m\x1b[?25l\x1b[?25h\r\n'.repeat(20_000) + 'end');
  assert.equal(s.lines().length, 5000 + 10);
  assert.ok(s.historyBytes < 5000 * 40, `empty lines take a few bytes each: ${s.historyBytes}`);
  const all = s.readLines({ lines: 100_000 });
  assert.equal(all.at(-1), 'end');
  assert.ok(all.slice(0, -1).every((l) => l === ''));
  s.dispose();
});

test('resizing over and over while output floods in loses and doubles no line', { timeout: 120_000 }, async () => {
  const s = new Screen({ cols: 40, rows: 10, scrollback: 50_000 });
  const sizes: Array<[number, number]> = [[1, 1], [200, 60], [7, 3], [40, 10], [3, 40], [120, 2], [1, 30], [80, 24]];
  let n = 0;
  for (let round = 0; round < 40; round++) {
    let parsed = '';
    let queued = '';
    for (let i = 0; i < 50; i++) parsed += `L${++n}\r\n`;
    for (let i = 0; i < 50; i++) queued += `L${++n}\r\n`;
    await write(s, parsed);
    s.write(queued); // still queued when the resize lands: xterm parses it at the new size
    const [c, r] = sizes[round % sizes.length];
    s.resize(c, r);
  }
  await write(s, '');
  s.resize(40, 10);
  // Rows joined back into lines by their wrapped flags.
  const v = s.lines();
  const lines: string[] = [];
  for (let i = 0; i < v.length; i++) {
    const row = v.at(i)!;
    const t = row.translateToString(true);
    if (row.isWrapped && lines.length) lines[lines.length - 1] += t;
    else lines.push(t);
  }
  const nums = lines.map((l) => l.trim()).filter((l) => /^L\d+$/.test(l)).map((l) => Number(l.slice(1)));
  assert.equal(nums.length, n, `every line once (${nums.length} of ${n})`);
  assert.deepEqual(nums, Array.from({ length: n }, (_, i) => i + 1), 'in order');
  s.dispose();
});

test('a 1-column pane archives wide characters, emoji and combining marks without throwing', async () => {
  const s = new Screen({ cols: 1, rows: 3, scrollback: 1000 });
  await write(s, '漢😀e\u0301ab\u200b\r\n'.repeat(2000));
  assert.equal(s.lines().length, 1000 + 3);
  for (const l of s.readLines({ lines: 5000, ansi: true })) assert.ok([...l].length <= 4, JSON.stringify(l));
  s.dispose();
});

test('a different truecolour on every cell stays within what xterm itself held for those cells', { timeout: 120_000 }, async () => {
  const s = new Screen({ cols: 200, rows: 20, scrollback: 2000 });
  let data = '';
  for (let y = 0; y < 2500; y++) {
    for (let x = 0; x < 200; x++) data += `\x1b[38;2;${x};${y % 256};${(x * y) % 256}m\x1b[48;2;${y % 256};${x};7m#`;
    data += '\x1b[0m\r\n';
    if (data.length > MB) {
      await write(s, data);
      data = '';
    }
  }
  await write(s, data);
  const cells = 2000 * 200;
  // A style run per cell (12 bytes) and its text (2): about what xterm's 12 bytes a cell cost, never unbounded.
  assert.ok(s.historyBytes < cells * 16, `${(s.historyBytes / cells).toFixed(1)} bytes a cell`);
  const row = s.readLines({ lines: 30, ansi: true })[0];
  assert.ok(row.startsWith('\x1b[38;2;0;'), 'colours read back');
  s.dispose();
});
