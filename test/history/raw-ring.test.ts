// The raw tier's ring (src/history/raw-ring.ts): it grows, wraps and overflows without losing, doubling or reordering a
// line, and gives its memory back once the pane is quiet.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ArchivedLine, Scrollback } from '../../src/history/index.js';
import { TieredStore } from '../../src/history/pending.js';
import { ringWords } from '../../src/history/raw-ring.js';
import { rawLineAt } from '../../src/history/xterm-cells.js';
import { waitFor } from '../support/wait-for.js';
import { reference, write } from './support.js';

const COLS = 40;
const ROWS = 100;

/** Pushes lines `from`..`to` (text of varied width, some wide characters) into the store, as xterm holds them. */
async function pushLines(term: ReturnType<typeof reference>, store: TieredStore, from: number, to: number, keep: number): Promise<void> {
  for (let n = from; n <= to; n += ROWS) {
    let s = '\x1b[H\x1b[2J';
    const last = Math.min(to, n + ROWS - 1);
    for (let i = n; i <= last; i++) s += `\x1b[3${i % 8}mL${i}\x1b[0m ${'x'.repeat(i % 29)}${i % 3 ? '' : '漢'}${i === last ? '' : '\r\n'}`;
    await write(term, s);
    for (let y = 0; y <= last - n; y++) {
      store.push(rawLineAt(term.buffer.normal, y));
      if (store.count > keep) store.dropOldest(store.count - keep);
    }
  }
}

function texts(store: TieredStore): string[] {
  const out: string[] = [];
  for (let i = 0; i < store.count; i++) out.push(new ArchivedLine(store.line(i)!).translateToString(true));
  return out;
}

const expected = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, k) => {
  const i = from + k;
  return `L${i} ${'x'.repeat(i % 29)}${i % 3 ? '' : '漢'}`.trimEnd();
});

test('the ring grows and wraps under a long flood; the lines kept read back in order', async (t) => {
  const term = reference(COLS, ROWS, 0);
  const store = new TieredStore(() => 6000 * COLS * 3);
  const before = ringWords();
  t.after(() => { store.clear(); term.dispose(); });
  // First a short history, so the ring has wrapped when the longer one makes it grow.
  await pushLines(term, store, 1, 6000, 2000);
  await pushLines(term, store, 6001, 20_000, 6000);
  assert.equal(store.pendingCount, 6000, 'every kept line is still raw (none was encoded mid-flood)');
  // 6000 lines of ~20 cells need more than the 1 MiB a ring starts with.
  assert.ok(ringWords() - before > 1 << 18, `the ring grew: ${ringWords() - before} words`);
  assert.deepEqual(texts(store), expected(14_001, 20_000));
});

test('a full ring that may not grow encodes its oldest lines; a line bigger than the ring is encoded at once', async (t) => {
  const term = reference(COLS, ROWS, 0);
  // 2048 words: about 20 of these lines.
  const store = new TieredStore(() => 2048);
  t.after(() => { store.clear(); term.dispose(); });
  await pushLines(term, store, 1, 500, 400);
  assert.ok(store.pendingCount < 60, `the ring holds what fits: ${store.pendingCount}`);
  assert.deepEqual(texts(store), expected(101, 500));

  const wide = reference(1000, 2, 0);
  t.after(() => wide.dispose());
  await write(wide, `\x1b[31m${'w'.repeat(999)}`); // 3000 words with the style: more than the ring
  store.push(rawLineAt(wide.buffer.normal, 0));
  assert.equal(store.pendingCount, 0, 'pending lines were encoded first, then the big one');
  const all = texts(store);
  assert.equal(all.at(-1), 'w'.repeat(999));
  assert.deepEqual(all.slice(0, -1), expected(101, 500));
});

test('once the pane is quiet the ring is encoded and its memory given back; clear and dispose give it back too', async (t) => {
  const before = ringWords();
  const term = reference(COLS, 5, Scrollback.xtermScrollback(5000));
  const sb = new Scrollback(term, 5000);
  term.onScroll(() => sb.scrolled());
  t.after(() => { sb.dispose(); term.dispose(); });
  let s = '';
  for (let i = 0; i < 3000; i++) s += `line ${i} ${'y'.repeat(i % 30)}\r\n`;
  await write(term, s);
  assert.ok(sb.pendingLines() > 2000 && ringWords() > before, 'a flood holds a ring');
  await waitFor(() => sb.pendingLines() === 0 && ringWords() === before, { timeoutMs: 5000, message: 'the ring given back once quiet' });
  assert.match(sb.view().at(0)!.translateToString(true), /^line 0\b/);

  await write(term, s);
  assert.ok(ringWords() > before);
  sb.dispose();
  assert.equal(ringWords(), before, 'dispose gives the ring back');
});

test('a copied line keeps its underline and combined text after xterm reuses the line and its side tables', async () => {
  const term = reference(20, 3, 0);
  const store = new TieredStore(() => 1 << 16);
  // Curly underline and an underline colour live in xterm's extended-attribute table, é's accent in its combined table.
  await write(term, '\x1b[4:3mcurly\x1b[4:0m \x1b[58;5;1mcol\x1b[0m e\u0301!');
  const line = rawLineAt(term.buffer.normal, 0);
  store.push(line);
  // Only combined text is copied aside; the extended attributes are folded into the copied cells.
  const side = (store as unknown as { ring: { side: Array<{ combined?: object; ext?: object } | undefined> } }).ring.side[0];
  assert.ok(side?.combined && side.ext === undefined, 'combined text copied, no extended table');
  // xterm writes the same line object again: other text, no styles, one more accent.
  await write(term, '\x1b[H\x1b[2Kplain a\u0300 text');
  assert.equal(rawLineAt(term.buffer.normal, 0), line, 'xterm reused the line object');
  const got = new ArchivedLine(store.line(0)!);
  assert.equal(got.translateToString(true), 'curly col e\u0301!');
  const cell = term.buffer.normal.getNullCell();
  const underlined = [...'curly col e\u0301!'.normalize('NFC')].map((_, x) => (got.getCell(x, cell) ? Boolean(cell.isUnderline()) : false));
  assert.deepEqual(underlined.slice(0, 5), [true, true, true, true, true], 'the curly underline shows as underline');
  assert.equal(underlined.slice(5).some(Boolean), false, 'an underline colour alone underlines nothing');
  term.dispose();
});
