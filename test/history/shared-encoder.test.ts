// Sixteen panes going quiet together have their pending history encoded in short turns shared by all of them
// (src/history/pending.ts), not sixteen slices in one turn, and every line comes out as it went in.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Screen } from '../../src/server/screen.js';
import { hasSchedstat, sliceMeter } from '../../bench/lib/slice-meter.js';
import { waitFor } from '../support/wait-for.js';

const PANES = 16;
const LINES = 10_000;
const styled = (tag: number) =>
  Array.from({ length: LINES }, (_, i) => `\x1b[3${i % 8}mp${tag} line ${i} \x1b[1m${'x'.repeat(40 + (i % 40))}\x1b[0m`).join('\r\n') + '\r\n';

test('16 full panes going quiet at once: no synchronous slice of their encoding over 35 ms of CPU, no line lost', { skip: !hasSchedstat && 'needs /proc schedstat', timeout: 120_000 }, async (t) => {
  const screens = Array.from({ length: PANES }, () => new Screen({ cols: 100, rows: 25, scrollback: LINES }));
  t.after(() => { for (const s of screens) s.dispose(); });
  // Written in 16 KB pieces, round robin: xterm parses the sixteen side by side. Each is held as not quiet meanwhile,
  // as the server holds a pane whose output still waits to be parsed (outputWaiting), so none starts encoding before
  // the release below, however late its next piece comes on a loaded machine.
  for (const s of screens) s.outputWaiting(true);
  const pieces = screens.map((_, p) => styled(p).match(/[^]{1,16384}/g)!);
  const done: Array<Promise<void>> = [];
  for (let i = 0; pieces.some((ps) => i < ps.length); i++) {
    screens.forEach((s, p) => {
      if (i < pieces[p].length) done.push(new Promise<void>((r) => s.write(pieces[p][i], r)));
    });
  }
  await Promise.all(done);
  // Most of the 160 000 lines are still raw. Not "12 panes of 16 over 5 000 each": the raw tiers of a process share
  // 128 MiB (raw-ring.ts), so the rings that grew first hold ~9 600 lines and the rest, refused a doubling, encode as
  // they fill and hold 2 300-4 800; which ones depends on xterm's timers (that check failed 3 of 14 runs before this).
  const pending = screens.map((s) => s.pendingLines());
  const raw = pending.reduce((a, n) => a + n, 0);
  assert.ok(raw > 100_000 && pending.every((n) => n > 1000), `most panes' history still raw, waiting to be encoded: ${pending.join(' ')}`);
  const meter = sliceMeter();
  // All sixteen go quiet at once.
  for (const s of screens) s.outputWaiting(false);
  await waitFor(() => screens.every((s) => s.pendingLines() === 0), { timeoutMs: 60_000, message: 'every pane\'s history encoded' });
  const longest = meter.stop();
  t.diagnostic(`longest slice ${longest.toFixed(1)} ms CPU`);
  // Before the shared encoder: up to 16 x 1000 lines in one turn, 41 ms of CPU here with this fill (90-130 in a bench
  // with wider lines); now ~8 ms, a garbage collection's pause at most ~24.
  assert.ok(longest < 35, `longest synchronous slice while 16 panes encode: ${longest.toFixed(1)} ms of CPU`);
  for (let p = 0; p < PANES; p += 5) {
    const lines = screens[p].readLines({ lines: LINES + 25, source: 'all' });
    const first = lines.findIndex((l) => l.startsWith(`p${p} line 0 `));
    assert.ok(first >= 0, `pane ${p}: its first line is kept`);
    for (const i of [0, 1, 4999, 9974]) assert.ok(lines[first + i].startsWith(`p${p} line ${i} `), `pane ${p}, line ${i}: ${lines[first + i]}`);
  }
});
