// A cold snapshot of many full panes is taken in short synchronous slices (main-thread CPU between two turns of the loop), loses no line, and restore paints history in pieces, in short slices too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '../support/wait-for.js';
import { hasSchedstat, sliceMeter } from '../../bench/lib/slice-meter.js';
import { Screen } from '../../src/server/screen.js';
import { Capture } from '../../src/restore/capture.js';
import { unpackHistory } from '../../src/restore/history.js';
import { snapshotJson, writeSnapshotFile, readSnapshot } from '../../src/restore/store.js';
import { applyRestore, HISTORY_WRITE_CHARS } from '../../src/restore/apply.js';
import { reduce, emptyState } from '../../src/core/reducer.js';
import { ParseScheduler } from '../../src/server/parse-feed.js';
import { liveMemory } from '../support/live-memory.js';

const write = (s: Screen, d: string) => new Promise<void>((r) => s.write(d, r));
const styled = (tag: string, n: number, width: number) =>
  Array.from({ length: n }, (_, i) => `\x1b[3${i % 8}m${tag} ${i} \x1b[1m${'x'.repeat(width - 30 + (i % 20))}\x1b[0m ${i % 7}`).join('\r\n') + '\r\n';

const PANES = 8;
const LINES = 10_000;

/**
 * 35 ms of main-thread CPU on a machine with cores to spare. Oversubscribed (load over twice the cores: 9-10 on 2
 * seen here), V8's concurrent GC threads get little CPU and the main thread finishes their marking inside one
 * turn: 101 and 125 ms were measured then, with the work still sliced (unsliced, one paint of 16 x 10 000 lines is
 * seconds). The bound there still tells sliced from not.
 */
function sliceLimit(): number {
  const load = Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
  return load > 2 * availableParallelism() ? 250 : 35;
}

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
    const leaf = (n: number) => ({ kind: 'leaf' as const, pane: `w1:p${n}` });
    let layout: any = leaf(1);
    for (let n = 2; n <= PANES; n++) layout = { kind: 'split', axis: 'row', ratio: 0.5, a: layout, b: leaf(n) };
    const windows = [{ id: 'w1', layout, active: 'w1:p1', panes: screens.map((_, i) => ({ id: `w1:p${i + 1}`, command: ['/bin/sh'], cwd: '/' })) }];
    const st = reduce(emptyState('t', { cols: 200, rows: 50 }), { type: 'server.restore', cols: 200, rows: 50, windows }, { now: Date.now(), defaultCommand: ['/bin/sh'], defaultCwd: '/' }).state;
    const paths = { stateDir: join(home, 'state'), session: 't' };

    /** The wide pane filled afresh (its lines pending), a new capture (nothing cached), one snapshot timed. */
    const coldOnce = async (): Promise<number> => {
      screens[0]?.dispose();
      screens[0] = new Screen({ cols: 200, rows: 25, scrollback: LINES });
      await write(screens[0], styled('wide', LINES, 180));
      assert.ok(screens[0].pendingLines() > 5000, `the first pane still has its lines pending: ${screens[0].pendingLines()}`);
      const live = new Map(screens.map((sc, i) => [`w1:p${i + 1}`, { exited: false, lastOutputAt: 1, size: { cols: sc.cols, rows: sc.rows }, screen: sc }]));
      const capture = new Capture({ session: 't', cwd: '/', home, state: () => st, historyLines: () => LINES, pane: (id) => live.get(id) });
      // The test's own fill (80 000 styled lines of strings) is garbage a server has long collected when it snapshots:
      // collected here first, so a full collection of it (a 30-40 ms mark finished on the main thread when the machine
      // is busy, seen in CI at load 2.3) is not counted as the snapshot's slice.
      await liveMemory();
      const meter = sliceMeter();
      await writeSnapshotFile(paths, snapshotJson(await capture.take()));
      const longest = meter.stop();
      t.diagnostic(`longest slice ${longest.toFixed(1)} ms CPU, load ${readFileSync('/proc/loadavg', 'utf8').split(' ')[0]}`);
      return longest;
    };
    // The best of two cold snapshots, as the paint test below takes the best of three: a stall from outside (95.8 ms
    // once in a fresh-clone CI at load 3.2, against 5-8 ms quiet) hits one; a snapshot that is not sliced fails both.
    const tries: number[] = [];
    for (let i = 0; i < 2 && !(tries.length && Math.min(...tries) < sliceLimit()); i++) tries.push(await coldOnce());
    assert.ok(Math.min(...tries) < sliceLimit(), `longest synchronous slice of the cold snapshot, best of ${tries.length}: ${tries.map((x) => x.toFixed(1)).join(', ')} ms of CPU (load ${readFileSync('/proc/loadavg', 'utf8').split(' ')[0]}, limit ${sliceLimit()})`);

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
  const rt = { exited: false, lastOutputAt: 1, show: (d: string | Iterator<string>) => void (typeof d === 'string' ? writes.push(d) : writes.push(...{ [Symbol.iterator]: () => d })), write: () => {} };
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

test('restore paints 16 panes of 10 000 lines through the parse scheduler: no synchronous slice over 35 ms of CPU, every line on its screen, before the shell\'s output', { skip: !hasSchedstat && 'needs /proc schedstat', timeout: 180_000 }, async (t) => {
  // The best of up to three paints: a stall from outside (another test's process starving V8's GC threads) hits one
  // run; work that is not sliced fails all three.
  const tries: number[] = [];
  for (let i = 0; i < 3 && !(tries.length && Math.min(...tries) < sliceLimit()); i++) tries.push(await paintOnce(t));
  assert.ok(Math.min(...tries) < sliceLimit(), `longest synchronous slice painting 16 histories, best of ${tries.length}: ${tries.map((x) => x.toFixed(1)).join(', ')} ms of CPU (limit ${sliceLimit()})`);
});

async function paintOnce(t: { diagnostic(s: string): void }): Promise<number> {
  const N = 16;
  const sched = new ParseScheduler();
  const screens = Array.from({ length: N }, () => new Screen({ cols: 100, rows: 25, scrollback: LINES }));
  const feeds = screens.map((s) => sched.feedScreen(s));
  try {
    const histories = screens.map((_, i) => styled(`p${i}`, LINES, 90).split('\r\n').slice(0, LINES));
    const panes = new Map(histories.map((history, i) => [`w1:p${i + 1}`, { history, note: 'restored' }]));
    const rt = (i: number) => ({ exited: false, lastOutputAt: 1, show: (d: string | Iterator<string>) => feeds[i].queue(d), write: () => {} });
    const meter = sliceMeter();
    const t0 = performance.now();
    await applyRestore(
      { pane: (id) => rt(Number(id.slice(4)) - 1), paneCwd: () => '/', sessionStart: async () => ({ ok: true }), emit: () => {}, log: () => {} },
      { action: { type: 'server.restore', cols: 100, rows: 25, windows: [] }, panes, savedAt: 0 },
    );
    // The shell's first output, read from its pty right after: it lands below the history and the note.
    feeds.forEach((f, i) => f.push(Buffer.from(`prompt-${i}$ `)));
    assert.equal(screens[0].readLines({ lines: 5 }).join('').trim(), '', 'applyRestore parsed nothing itself: every history waits for turns');
    await Promise.all(feeds.map((f) => new Promise<void>((r) => f.then(r))));
    const longest = meter.stop();
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
    t.diagnostic(`painted in ${(performance.now() - t0).toFixed(0)} ms, ${sched.turns} turns, longest slice ${longest.toFixed(1)} ms CPU, load ${load}`);
    for (let i = 0; i < N; i++) {
      const text = screens[i].readLines({ lines: LINES + 100 }).map((l) => l.trimEnd());
      const at = (s: string) => text.findIndex((l) => l.startsWith(s));
      assert.ok(at(`p${i} 0 `) >= 0 && at(`p${i} ${LINES - 1} `) > at(`p${i} 0 `), `pane ${i}: its first and last history lines, in order`);
      assert.ok(at('── restored ──') > at(`p${i} ${LINES - 1} `), `pane ${i}: the note below the history`);
      assert.ok(at(`prompt-${i}$`) > at('── restored ──'), `pane ${i}: the shell's output below the note`);
    }
    return longest;
  } finally {
    for (const f of feeds) f.close();
    for (const s of screens) s.dispose();
  }
}
