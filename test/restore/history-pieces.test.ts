// Snapshot history packed in kept pieces (src/restore/history-pieces.ts) holds exactly what packing every line afresh holds, through output, eviction, clears, resizes and the alternate screen.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { unpackHistory } from '../../src/restore/history.js';
import { CHUNK, PaneHistory } from '../../src/restore/history-pieces.js';
import { Screen } from '../../src/server/screen.js';

const write = (s: Screen, d: string) => new Promise<void>((r) => s.write(d, r));

/** What a snapshot must hold: the last `want` lines of history + screen, trailing blank lines dropped. */
function expected(s: Screen, want: number): string[] {
  const end = s.lineCount();
  const lines = s.readRange(Math.max(0, end - want), end, true);
  while (lines.length && !lines[lines.length - 1].trim()) lines.pop();
  return lines;
}

async function check(s: Screen, ph: PaneHistory, want: number, what: string, size = `${s.cols}x${s.rows}`): Promise<void> {
  const r = await ph.pack(s, want, size);
  assert.ok(r, what);
  const want_ = expected(s, want);
  const got = await unpackHistory(r.gz.toString('base64'));
  assert.equal(r.lines, want_.length, `${what}: line count`);
  assert.deepEqual(want_.length ? got : [], want_, what);
}

const lines = (from: number, n: number, tag = 'l') => Array.from({ length: n }, (_, i) => (i % 9 === 4 ? '' : `\x1b[3${i % 8}m${tag} ${from + i} 漢字\x1b[0m tail`)).join('\r\n') + '\r\n';

test('pieces are reused across output and stay exact through eviction, blank tails, ED3, RIS, resizes and the alternate screen', { timeout: 60_000 }, async () => {
  const s = new Screen({ cols: 80, rows: 24, scrollback: 5000 });
  try {
    const ph = new PaneHistory(() => true);
    await check(s, ph, 5000, 'empty');
    await write(s, '$ ');
    await check(s, ph, 5000, 'a prompt');
    await write(s, lines(0, 3000));
    await check(s, ph, 5000, '3000 lines');
    // More output: the settled pieces are not packed again (their buffers are the same objects).
    const before = new Set((ph as unknown as { pieces: Map<number, { gz: Buffer }> }).pieces.values());
    await write(s, lines(3000, 10));
    await check(s, ph, 5000, '10 more');
    const after = [...(ph as unknown as { pieces: Map<number, { gz: Buffer }> }).pieces.values()];
    assert.ok(after.length >= 2 && after.filter((p) => before.has(p)).length >= after.length - 1, 'pieces reused');
    // Past the limit: the oldest lines go, the first piece is cut.
    for (let i = 0; i < 4; i++) {
      await write(s, lines(4000 + i * 1700, 1700));
      await check(s, ph, 5000, `eviction ${i}`);
      await check(s, ph, 1234, `eviction ${i}, fewer lines wanted`);
    }
    // A screen of blank lines after the history: trailing blanks dropped across pieces.
    await write(s, '\r\n'.repeat(400));
    await check(s, ph, 5000, 'blank tail');
    await write(s, 'text again\r\n');
    await check(s, ph, 5000, 'text after blanks');
    // Resizes (narrower and back) and more output.
    s.resize(50, 30);
    await check(s, ph, 5000, 'narrow');
    await write(s, lines(20_000, 600));
    s.resize(80, 24);
    await check(s, ph, 5000, 'wide again');
    await write(s, lines(21_000, 1500));
    await check(s, ph, 5000, 'after resizes');
    // Narrower, taller and back between two snapshots: the same size at both, so the pieces are kept; still exact.
    s.resize(40, 60);
    await write(s, lines(22_000, 300));
    s.resize(80, 24);
    await check(s, ph, 5000, 'a resize round trip between snapshots');
    s.resize(120, 80);
    s.resize(80, 24);
    await check(s, ph, 5000, 'taller and back, no output');
    // The alternate screen, and back.
    await write(s, '\x1b[?1049h\x1b[Halt screen\r\n');
    await check(s, ph, 5000, 'alternate');
    await write(s, '\x1b[?1049l');
    await check(s, ph, 5000, 'normal again');
    // ED3 clears history; RIS resets.
    await write(s, '\x1b[3J');
    await check(s, ph, 5000, 'ED3');
    await write(s, lines(30_000, 2500));
    await check(s, ph, 5000, 'after ED3');
    await write(s, '\x1bc');
    await check(s, ph, 5000, 'RIS');
    await write(s, lines(40_000, 2 * CHUNK + 77));
    await check(s, ph, 5000, 'after RIS');
  } finally {
    s.dispose();
  }
});

test('a pane that closes while it is packed gives nothing', async () => {
  const s = new Screen({ cols: 80, rows: 24, scrollback: 5000 });
  try {
    await write(s, lines(0, 3000));
    let alive = true;
    const ph = new PaneHistory(() => alive);
    const p = ph.pack(s, 5000, '80x24');
    alive = false;
    assert.equal(await p, undefined);
  } finally {
    s.dispose();
  }
});

test('a pane on the alternate screen keeps its normal history in the snapshot, not the full-screen program it shows', async () => {
  const s = new Screen({ cols: 80, rows: 24, scrollback: 5000 });
  try {
    const ph = new PaneHistory(() => true);
    await write(s, lines(0, 3000) + '$ vim notes.txt\r\n');
    const before = await ph.pack(s, 5000, '80x24');
    assert.ok(before);
    // vim (or a full-screen agent) takes the alternate screen, draws, scrolls and the pane is resized under it.
    await write(s, '\x1b[?1049h\x1b[H\x1b[2J~ vim screen\r\n' + lines(90_000, 200, 'alt'));
    s.resize(100, 30);
    await write(s, 'more alt output\r\n');
    const r = await ph.pack(s, 5000, '100x30');
    assert.ok(r);
    const got = (await unpackHistory(r.gz.toString('base64'))) ?? [];
    assert.ok(got.some((l) => l.includes('$ vim notes.txt')), 'the shell line that started the program is kept');
    assert.ok(got.some((l) => l.includes('l 2999 ')), 'the last history line before it is kept');
    assert.ok(!got.some((l) => /vim screen|alt 9\d{4}|more alt/.test(l)), 'nothing of the alternate screen');
    assert.ok(r.lines >= 3000 && r.lines <= 3002, `the whole normal history: ${r.lines}`);
    // Back on the normal screen the history goes on from there.
    await write(s, '\x1b[?1049l$ ls\r\n');
    const after = (await unpackHistory((await ph.pack(s, 5000, '100x30'))!.gz.toString('base64'))) ?? [];
    assert.ok(after.some((l) => l.includes('l 0 ')) && after.some((l) => l.includes('$ ls')));
  } finally {
    s.dispose();
  }
});
