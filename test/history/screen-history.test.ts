// A screen's history through its readers: copy mode (search, selection, rendering), pane read, clear, reset, resize, the alternate screen.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Screen } from '../../src/server/screen.js';
import { copyKey, startCopy, type CopyState } from '../../src/server/copy-mode.js';
import { copyBufferOf, renderCopy } from '../../src/server/copy-render.js';
import { reference, write } from './support.js';

const numbered = (from: number, to: number, tag = 'line') => {
  let s = '';
  for (let i = from; i <= to; i++) s += `${tag} ${i}\r\n`;
  return s;
};
const keys = (s: CopyState, screen: Screen, ...ks: string[]) => {
  let st: CopyState | undefined = s;
  let copied: string | undefined;
  for (const k of ks) {
    const r = copyKey(st!, copyBufferOf(screen), k);
    st = r.state;
    copied = r.copied ?? copied;
  }
  return { state: st, copied };
};
const STYLES = { selection: '7', match: '4', current: '7;1', indicator: '7' };

test('copy mode searches, selects and copies lines that are only in the store', async () => {
  const s = new Screen({ cols: 30, rows: 5, scrollback: 3000 });
  await write(s, numbered(1, 3000) + 'needle \x1b[31mred\x1b[0m 漢字 wrapped-' + 'x'.repeat(40) + '\r\n' + numbered(3001, 4000));
  const buf = copyBufferOf(s);
  assert.equal(buf.length, 3000 + 5, 'history at its limit, then the screen');
  let st = startCopy('p', buf, 'vi');
  ({ state: st } = keys(st, s, '?', 'n', 'e', 'e', 'd', 'l', 'e', 'Enter') as { state: CopyState });
  assert.equal(st.message, undefined, 'found going back into history');
  assert.equal(buf.line(st.cursor.line), 'needle red 漢字 wrapped-xxxxxx', 'the match is on the archived line');
  assert.ok(st.cursor.line < buf.first + buf.length - 900, 'far back in history');
  // Select from the match over its two soft-wrapped continuation rows: copied without the wraps.
  const r = keys(st, s, 'v', 'j', 'j', '$', 'y');
  assert.equal(r.copied, 'needle red 漢字 wrapped-' + 'x'.repeat(40));
  // The copy view draws archived rows as xterm drew them, the match marked.
  st = keys(st, s, 'n').state!;
  const view = renderCopy(s, { ...st, search: { query: 'needle', backward: true } }, STYLES);
  const row = view.rows[st.cursor.line - st.top];
  assert.ok(row.includes('\x1b[0;7;1mneedle') && row.includes('\x1b[0;31mred'), `the current match marked, the rest styled: ${JSON.stringify(row)}`);
  // Oldest line kept, then top of history with g.
  const top = keys(st, s, 'g').state!;
  assert.equal(top.cursor.line, buf.first);
  assert.equal(buf.line(top.cursor.line), 'line 1000', 'the oldest of the 3000 history rows kept (4004 rows were written)');
  s.dispose();
});

test('pane read --scrollback returns every line kept, plain and styled, and they match xterm keeping them itself', async () => {
  const s = new Screen({ cols: 40, rows: 6, scrollback: 2000 });
  const ref = reference(40, 6, 2000);
  const data = numbered(1, 2500, '\x1b[1;38;5;200mstyled\x1b[0m');
  await write(s, data);
  await write(ref, data);
  const all = s.readLines({ lines: 1_000_000 });
  assert.equal(all.length, 2000 + 5, 'the limit, then the screen up to its last non-blank row');
  assert.equal(all[0], 'styled 496');
  assert.equal(all[all.length - 1], 'styled 2500');
  const ansi = s.readLines({ lines: 1_000_000, ansi: true });
  assert.equal(ansi[0], '\x1b[1;38;5;200mstyled\x1b[0m 496');
  // Restore reads history in slices: the slices join up to the same lines.
  const n = s.lineCount();
  const sliced: string[] = [];
  for (let y = 0; y < n; y += 300) sliced.push(...s.readRange(y, Math.min(n, y + 300), true));
  assert.deepEqual(sliced, ansi);
  s.dispose();
  ref.dispose();
});

test('ED3 (clear history) and RIS empty the store; copy-mode line numbers stay put', async () => {
  const s = new Screen({ cols: 20, rows: 4, scrollback: 1000 });
  await write(s, numbered(1, 500));
  assert.ok(s.historyBytes > 0);
  const first = s.lines().first;
  const lastAbs = first + s.lines().length - 1;
  await write(s, '\x1b[3J');
  assert.equal(s.historyBytes, 0);
  const v = s.lines();
  assert.equal(v.length, 4, 'only the screen is left');
  assert.equal(v.first + v.length - 1, lastAbs, 'the screen keeps its absolute line numbers');
  assert.deepEqual(s.readLines({ lines: 100 }), ['line 498', 'line 499', 'line 500']);
  await write(s, numbered(501, 700));
  assert.equal(s.readLines({ lines: 1000 })[0], 'line 498', 'history grows again from the clear');
  await write(s, '\x1bc');
  assert.equal(s.historyBytes, 0);
  assert.deepEqual(s.readLines({ lines: 1000 }), []);
  await write(s, numbered(1, 100));
  assert.equal(s.readLines({ lines: 1000 }).length, 100);
  s.dispose();
});

test('the alternate screen has no history; the normal screen keeps its own through it', async () => {
  const s = new Screen({ cols: 20, rows: 4, scrollback: 1000 });
  await write(s, numbered(1, 300));
  const before = s.readLines({ lines: 1000 });
  await write(s, '\x1b[?1049h' + numbered(1, 200, 'alt'));
  assert.equal(s.lines().length, 4, 'the alternate screen: its rows only');
  assert.deepEqual(s.readLines({ lines: 1000 }), ['alt 198', 'alt 199', 'alt 200']);
  s.resize(25, 6);
  await write(s, '\x1b[?1049l');
  const after = s.readLines({ lines: 1000 });
  assert.deepEqual(after.slice(0, 250), before.slice(0, 250), 'history is intact after the alternate screen and a resize on it');
  await write(s, numbered(301, 400));
  assert.equal(s.readLines({ lines: 1000 }).at(-1), 'line 400');
  assert.equal(new Set(s.readLines({ lines: 1000 })).size, s.readLines({ lines: 1000 }).length, 'no line twice');
  s.dispose();
});

test('resizing keeps every history line once: taller panes pull lines back, narrower panes keep archived rows whole', async () => {
  const s = new Screen({ cols: 30, rows: 5, scrollback: 1000 });
  await write(s, numbered(1, 400));
  const lines = () => s.readLines({ lines: 10_000 });
  const n0 = lines().length;
  s.resize(30, 20);
  assert.equal(lines().length, n0, 'taller: no line lost or doubled');
  assert.equal(s.snapshot().lines[0], 'line 382', 'the taller screen shows lines pulled back from history');
  s.resize(30, 3);
  assert.deepEqual(lines(), Array.from({ length: 400 }, (_, i) => `line ${i + 1}`));
  s.resize(4, 3);
  const narrow = lines();
  assert.equal(narrow[0], 'line 1', 'archived rows are not reflowed, and read whole');
  assert.ok(narrow.includes('line 200'));
  s.resize(30, 5);
  assert.equal(new Set(lines().filter((l) => l.startsWith('line'))).size, lines().filter((l) => l.startsWith('line')).length, 'no line twice');
  s.dispose();
});
