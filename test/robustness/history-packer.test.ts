// The snapshot's history packer (src/restore/history.ts), fed a slice at a time: the same lines back, trailing blanks dropped,
// and a capture abandoned half-way leaves nothing behind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HistoryPacker, unpackHistory } from '../../src/restore/history.js';

test('lines packed a slice at a time unpack to the same lines; blank lines inside are kept, trailing ones dropped', async () => {
  const lines = Array.from({ length: 2500 }, (_, i) => (i % 7 === 3 ? '  ' : `\x1b[3${i % 8}mline ${i} 漢字\x1b[0m`));
  const p = new HistoryPacker();
  for (let i = 0; i < lines.length; i += 100) await p.add(lines.slice(i, i + 100));
  await p.add(['', '   ']);
  await p.add([]);
  await p.add([' ']);
  const b64 = await p.end();
  assert.equal(p.lines, lines.length);
  assert.deepEqual(await unpackHistory(b64), lines);
});

test('nothing but blank lines packs to no lines; an abandoned packer rejects nothing', async () => {
  const p = new HistoryPacker();
  await p.add(['', ' ', '\t']);
  assert.equal(p.lines, 0);
  assert.deepEqual(await unpackHistory(await p.end()), ['']);
  const q = new HistoryPacker();
  await q.add(['a', 'b']);
  q.abort();
  q.abort();
});
