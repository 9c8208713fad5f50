// Archived history renders exactly as xterm rendered the same lines when it kept them itself.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Screen } from '../../src/server/screen.js';
import { cellsOf, prng, randomLine, reference, referenceLines, screenLines, write } from './support.js';

async function both(cols: number, rows: number, limit: number, data: string): Promise<{ s: Screen; ref: ReturnType<typeof reference> }> {
  const s = new Screen({ cols, rows, scrollback: limit });
  const ref = reference(cols, rows, limit);
  await write(s, data);
  await write(ref, data);
  return { s, ref };
}

function assertSame(s: Screen, ref: ReturnType<typeof reference>, what: string, cells = true): void {
  const got = screenLines(s);
  const want = referenceLines(ref);
  assert.equal(got.length, want.length, `${what}: line count`);
  for (let i = 0; i < want.length; i++) assert.deepEqual(got[i], want[i], `${what}: line ${i} of ${want.length}`);
  if (!cells) return;
  // Cell by cell, as copy mode reads them (selection marks, cursor columns, mouse positions).
  const v = s.lines();
  const a = s.scratchCell();
  const b = ref.buffer.active.getNullCell();
  for (let i = 0; i < want.length; i++) {
    assert.deepEqual(cellsOf(v.at(i)!, s.cols, a), cellsOf(ref.buffer.active.getLine(i)!, s.cols, b), `${what}: cells of line ${i}`);
  }
}

test('styled, wide, emoji, combining and wrapped lines read back from the store as xterm drew them', async () => {
  for (const [seed, cols] of [[7, 47], [8, 80], [9, 13], [10, 200]]) {
    const rnd = prng(seed);
    let data = '';
    for (let i = 0; i < 400; i++) data += randomLine(rnd, 30) + '\r\n';
    const { s, ref } = await both(cols, 9, 10_000, data);
    assert.ok(s.historyBytes > 0, 'lines were archived');
    assertSame(s, ref, `random corpus, seed ${seed}, ${cols} columns`);
    s.dispose();
    ref.dispose();
  }
});

test('the corner cases of a cell: last-column wide characters, pending wrap, bg-coloured erase, tabs, 1 column', async () => {
  const cases = [
    // A wide character that does not fit in the last column wraps, leaving the column blank.
    'abcd漢\r\n', 'abcde漢\r\n', '漢字漢字漢\r\n',
    // Exactly the width: wrap pending, then a newline.
    'abcdef\r\n', 'abcdefg\r\n',
    '\x1b[41m\x1b[K\x1b[0m\r\n', 'x\x1b[44m   \x1b[0m\r\n', '\x1b[7m \x1b[0m\r\n',
    'a\tb\tc\r\n', '\x1b[4:3mcurly\x1b[4:0m\x1b[58;5;1m plain\x1b[0m\r\n',
    'e\u0301\u0302\u0303\u0304 a\u20dd\r\n', '🏳️‍🌈👩‍💻\r\n', '\x1b[2m\x1b[1mdim+bold\x1b[22m\r\n',
  ];
  const { s, ref } = await both(6, 3, 500, cases.join('').repeat(8));
  assertSame(s, ref, 'corner cases at 6 columns');
  s.dispose();
  ref.dispose();
  const one = await both(1, 2, 500, 'ab漢c\r\n😀\r\n'.repeat(40));
  assertSame(one.s, one.ref, '1 column');
  one.s.dispose();
  one.ref.dispose();
});

test('history past the limit is dropped oldest first, exactly to the limit', async () => {
  let data = '';
  for (let i = 1; i <= 5000; i++) data += `line ${i}\r\n`;
  const { s, ref } = await both(20, 5, 1000, data);
  assertSame(s, ref, 'limit 1000');
  const v = s.lines();
  assert.equal(v.length, 1000 + 5, 'the limit in lines of history, then the screen');
  assert.equal(s.readLines({ lines: 100_000 })[0], 'line 3997', '1000 lines of history above a screen showing 4997-5000');
  s.dispose();
  ref.dispose();
});

test('a limit at or under what xterm keeps itself needs no store', async () => {
  let data = '';
  for (let i = 1; i <= 300; i++) data += `line ${i}\r\n`;
  const { s, ref } = await both(20, 5, 40, data);
  assert.equal(s.historyBytes, 0);
  assertSame(s, ref, 'limit 40');
  s.dispose();
  ref.dispose();
});
