// Tests for dirty-row tracking (dirty-rows.ts): rows re-serialised from xterm's dirty range always equal a full
// re-serialise, through scrolls, scroll regions, resizes, the alternate screen, wide characters, erases and resets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Screen } from '../../src/server/screen.js';

const write = (s: Screen, data: string | Uint8Array) => new Promise<void>((resolve) => s.write(data, resolve));

/** A tracking screen and a reference that re-serialises everything, fed the same output. */
function pair(cols: number, rows: number, scrollback = 1000) {
  const fast = new Screen({ cols, rows, scrollback });
  const ref = new Screen({ cols, rows, scrollback, trackRows: false });
  return {
    fast,
    async write(d: string | Uint8Array) {
      await write(fast, d);
      await write(ref, d);
    },
    resize(c: number, r: number) {
      fast.resize(c, r);
      ref.resize(c, r);
    },
    check(what: string) {
      assert.deepEqual(fast.viewportRows(), ref.viewportRows(), what);
    },
    dispose() {
      fast.dispose();
      ref.dispose();
    },
  };
}

test('a typed character re-serialises one row, not the screen', async () => {
  const s = new Screen({ cols: 200, rows: 50, scrollback: 1000 });
  await write(s, 'line\r\n'.repeat(60) + '$ ');
  s.viewportRows();
  await write(s, 'x');
  const rows = s.viewportRows();
  assert.equal(s.rowsSerialised, 1, 'only the cursor row (a silent fallback to all rows would show here)');
  assert.equal(rows[49], '$ x');
  assert.equal(s.viewportRows(), rows, 'nothing changed: the cached array');
  assert.equal(s.rowsSerialised, 0);
  await write(s, '漢');
  assert.equal(s.viewportRows()[49], '$ x漢');
  assert.equal(s.rowsSerialised, 1);
  s.dispose();
});

test('unchanged rows keep their strings after a partial refresh', async () => {
  const s = new Screen({ cols: 20, rows: 5, scrollback: 100 });
  await write(s, 'one\r\ntwo\r\nthree');
  const a = s.viewportRows();
  await write(s, '\x1b[1;1Hzero');
  const b = s.viewportRows();
  assert.notEqual(b, a);
  assert.equal(b[0], 'zero');
  assert.equal(b[1], a[1]);
  assert.equal(b[2], a[2]);
  s.dispose();
});

// Each case: output (and resizes) in steps; after every step the tracked rows must equal the reference.
const CASES: Array<[string, Array<string | [number, number]>]> = [
  ['typing, backspace and CR overwrite', ['$ ', 'a', 'b', 'c', '\b \b', '\rX', '\t|tab']],
  ['wide characters, at the last column and wrapping', ['漢字', '\x1b[1;19H漢', '\x1b[1;20H字', 'ab', '\x1b[2;1H\x1b[1;31m日本\x1b[0m', '\x1b[2;2Hx']],
  ['combining marks and emoji', ['e\u0301', ' 👍🏽', ' 👨‍👩‍👧', '\x1b[1;1H\x1b[P']],
  ['newlines scroll the whole screen', ['1\r\n2\r\n3\r\n4\r\n5', '\r\n6', '\r\n7\r\n8\r\n9', '\x1bD', '\x1bM', '\x1b[2S', '\x1b[3T']],
  ['scroll regions, reverse index, insert and delete lines', ['a\r\nb\r\nc\r\nd\r\ne', '\x1b[2;4r', '\x1b[4;1H\n', '\x1b[2;1H\x1bM', '\x1b[3;1H\x1b[2L', '\x1b[2M', '\x1b[r', '\x1b[5;1Hz']],
  ['insert, delete and erase characters', ['abcdefghij', '\x1b[1;3H\x1b[2@', '\x1b[3P', '\x1b[4X', '\x1b[2;5Hx\x1b[1K']],
  ['erase in line and display, each kind', ['aaaa\r\nbbbb\r\ncccc\r\ndddd', '\x1b[2;2H\x1b[K', '\x1b[3;2H\x1b[1K', '\x1b[4;2H\x1b[2K', '\x1b[2;3H\x1b[0J', '\x1b[1;3H\x1b[1J', 'x\x1b[2J', 'y\r\n'.repeat(8) + '\x1b[3J']],
  ['alternate screen in and out (1049, 1047, 47)', ['main', '\x1b[?1049h', 'alt', '\x1b[3;3Hmid', '\x1b[?1049l', '\x1b[?1047h\x1b[2J', 'x', '\x1b[?1047l', '\x1b[?47h', 'y', '\x1b[?47l']],
  ['resets: RIS, DECSTR, DECALN', ['abc\r\ndef', '\x1bc', 'after', '\x1b#8', '\x1b[!p', '\x1b[2;2Hq']],
  ['SGR styles on a changing row', ['\x1b[1;32mgreen\x1b[0m', '\x1b[1;3H\x1b[7mI\x1b[0m', '\x1b[44m  \x1b[0m', '\x1b[1;1H\x1b[38;2;1;2;3mrgb']],
  ['resize smaller, larger, and output after', ['0123456789abcdefghij\r\nxyz\r\n$ ', [10, 4], 'q', [30, 8], 'w', [20, 5], '\r\nnew']],
  ['resize while on the alternate screen', ['main\r\n', '\x1b[?1049hfull', [12, 3], 'more', '\x1b[?1049l', [20, 5]]],
];

for (const [name, steps] of CASES) {
  test(`tracked rows equal a full re-serialise: ${name}`, async () => {
    const p = pair(20, 5);
    try {
      for (const [i, step] of steps.entries()) {
        if (typeof step === 'string') await p.write(step);
        else p.resize(step[0], step[1]);
        p.check(`${name}, step ${i} (${JSON.stringify(step)})`);
      }
    } finally {
      p.dispose();
    }
  });
}

test('tracked rows equal a full re-serialise over random output, checked after one or several writes', async () => {
  // A seeded generator, so a failure replays.
  let seed = 12345;
  const rnd = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const pieces = [
    () => 'abcdefghijklmnopqrstuvwxyz'.slice(0, 1 + rnd(26)),
    () => '漢字かな'.slice(0, 1 + rnd(4)),
    () => '\r\n',
    () => '\r',
    () => '\b',
    () => `\x1b[${1 + rnd(9)};${1 + rnd(24)}H`,
    () => `\x1b[${rnd(3)}K`,
    () => `\x1b[${rnd(4)}J`,
    () => `\x1b[${1 + rnd(3)}${'@PXLMST'[rnd(7)]}`,
    () => `\x1b[${1 + rnd(4)};${5 + rnd(4)}r`,
    () => '\x1b[r',
    () => ['\x1bD', '\x1bM', '\x1bE'][rnd(3)],
    () => `\x1b[${[1, 7, 31, 42, 0][rnd(5)]}m`,
    () => (rnd(4) === 0 ? ['\x1b[?1049h', '\x1b[?1049l'][rnd(2)] : ''),
    () => (rnd(20) === 0 ? '\x1bc' : ''),
  ];
  const p = pair(24, 9, 200);
  try {
    for (let step = 0; step < 700; step++) {
      const writes = 1 + rnd(3);
      let text = '';
      for (let w = 0; w < writes; w++) {
        const piece = pieces[rnd(pieces.length)]();
        text += piece;
        await p.write(piece);
      }
      if (rnd(60) === 0) p.resize(16 + rnd(16), 4 + rnd(8));
      p.check(`step ${step}: ${JSON.stringify(text)}`);
    }
  } finally {
    p.dispose();
  }
});
