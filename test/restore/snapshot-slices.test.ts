// A cold snapshot of many full panes is taken in short synchronous slices (main-thread CPU between two turns of the loop), loses no line, and restore paints history in pieces.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '../support/wait-for.js';
import { hasSchedstat, sliceMeter } from '../../bench/lib/slice-meter.js';
import { Screen } from '../../src/server/screen.js';
import { Capture } from '../../src/restore/capture.js';
import { unpackHistory } from '../../src/restore/history.js';
import { snapshotJson, writeSnapshotFile, readSnapshot } from '../../src/restore/store.js';
import { applyRestore, HISTORY_WRITE_CHARS } from '../../src/restore/apply.js';
import { reduce, emptyState } from '../../src/core/reducer.js';

const write = (s: Screen, d: string) => new Promise<void>((r) => s.write(d, r));
const styled = (tag: string, n: number, width: number) =>
  Array.from({ length: n }, (_, i) => `\x1b[3${i % 8}m${tag} ${i} \x1b[1m${'x'.repeat(width - 30 + (i % 20))}\x1b[0m ${i % 7}`).join('\r\n') + '\r\n';

const PANES = 8;
const LINES = 10_000;

test('a cold snapshot of 8 full panes, one of them with 10 000 lines its history has not encoded yet: no synchronous slice over 35 ms of CPU, no line lost', { skip: !hasSchedstat && 'needs /proc schedstat', timeout: 180_000 }, async (t) => {
  const home = mkdtempSync(join(tmpdir(), 'cas-slices-'));
  const screens: Screen[] = [];
  try {
    // The first pane is wide and filled last: the snapshot reads it first, while its 10 000 lines are still pending
    // (the old code's first read encoded them all at once). The others are as the server finds them a moment after
    // their output: history encoded.
    for (let i = 0; i < PANES; i++) screens.push(new Screen({ cols: i === 0 ? 200 : 100, rows: 25, scrollback: LINES }));
    for (let i = 1; i < PANES; i++) {
      await write(screens[i], styled(`p${i}`, LINES, 70));
      await waitFor(() => screens[i].pendingLines() === 0, { timeoutMs: 60_000, message: `pane ${i} history encoded` });
    }
    await write(screens[0], styled('wide', LINES, 180));
    assert.ok(screens[0].pendingLines() > 5000, `the first pane still has its lines pending: ${screens[0].pendingLines()}`);
    const leaf = (n: number) => ({ kind: 'leaf' as const, pane: `w1:p${n}` });
    let layout: any = leaf(1);
    for (let n = 2; n <= PANES; n++) layout = { kind: 'split', axis: 'row', ratio: 0.5, a: layout, b: leaf(n) };
    const windows = [{ id: 'w1', layout, active: 'w1:p1', panes: screens.map((_, i) => ({ id: `w1:p${i + 1}`, command: ['/bin/sh'], cwd: '/' })) }];
    const st = reduce(emptyState('t', { cols: 200, rows: 50 }), { type: 'server.restore', cols: 200, rows: 50, windows }, { now: Date.now(), defaultCommand: ['/bin/sh'], defaultCwd: '/' }).state;
    const live = new Map(screens.map((s, i) => [`w1:p${i + 1}`, { exited: false, lastOutputAt: 1, size: { cols: s.cols, rows: s.rows }, screen: s }]));
    const capture = new Capture({ session: 't', cwd: '/', home, state: () => st, historyLines: () => LINES, pane: (id) => live.get(id) });
    const paths = { stateDir: join(home, 'state'), session: 't' };

    const meter = sliceMeter();
    await writeSnapshotFile(paths, snapshotJson(await capture.take()));
    const longest = meter.stop();
    t.diagnostic(`longest slice ${longest.toFixed(1)} ms CPU, load ${readFileSync('/proc/loadavg', 'utf8').split(' ')[0]}`);
    assert.ok(longest < 35, `longest synchronous slice of the cold snapshot: ${longest.toFixed(1)} ms of CPU (load ${readFileSync('/proc/loadavg', 'utf8').split(' ')[0]})`);

    const r = readSnapshot(paths);
    assert.equal(r.kind, 'ok');
    if (r.kind !== 'ok') return;
    const panes = r.snapshot.windows[0].panes;
    for (let i = 0; i < PANES; i++) {
      const s = screens[i];
      const end = s.lineCount();
      const want = s.readRange(Math.max(0, end - LINES), end, true);
      while (want.length && !want[want.length - 1].trim()) want.pop();
      const got = await unpackHistory(panes[i].history!);
      assert.equal(panes[i].historyLines, want.length, `pane ${i}: line count`);
      assert.deepEqual(got, want, `pane ${i}: every line`);
    }
  } finally {
    for (const s of screens) s.dispose();
    rmSync(home, { recursive: true, force: true });
  }
});

test('restore paints a pane\'s history in pieces of ~16 KB, in order, the note after it', async () => {
  const writes: string[] = [];
  const history = Array.from({ length: 5000 }, (_, i) => `\x1b[32mline ${i}\x1b[0m ${'y'.repeat(i % 90)}`);
  const rt = { exited: false, lastOutputAt: 1, screen: { write: (d: string) => void writes.push(d) }, write: () => {} };
  await applyRestore(
    { pane: () => rt, paneCwd: () => '/', sessionStart: async () => ({ ok: true }), emit: () => {}, log: () => {} },
    { action: { type: 'server.restore', cols: 80, rows: 24, windows: [] }, panes: new Map([['w1:p1', { history, note: 'restored' }]]), savedAt: 0 },
  );
  const note = writes.pop()!;
  assert.match(note, /restored/);
  assert.ok(writes.length > 10, `in pieces: ${writes.length}`);
  for (const w of writes) assert.ok(w.length <= HISTORY_WRITE_CHARS + 200, `a piece of ${w.length} chars`);
  assert.equal(writes.join(''), history.join('\r\n') + '\r\n', 'the same text, in order');
});
