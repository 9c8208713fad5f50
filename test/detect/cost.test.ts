// What detection costs per snapshot (real recorded frames) and what a settled pane costs: nothing scheduled.
// The bounds are loose on purpose (shared CI machines); the measured numbers are printed as diagnostics.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { evaluate } from '../../src/detect/engine.js';
import { createDetector } from '../../src/detect/detector.js';
import { ruleSetFor } from '../../src/detect/rules.js';
import { screenFromText } from '../../src/cli/commands/detect.js';
import { builtin, fixture, frames, labels } from './support.js';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

function timeUs(fn: () => void): number {
  const t0 = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - t0) / 1000;
}

test('rule evaluation costs microseconds per snapshot', async (t) => {
  const lines: string[] = [];
  const all: number[] = [];
  for (const agent of ['claude', 'codex', 'gemini', 'pi']) {
    const set = ruleSetFor(builtin(), agent);
    const snaps = frames(`${agent}/recording/80x24.frames.jsonl`).events.flatMap((e) => (e.kind === 'frame' ? [e.snap] : []));
    for (const s of snaps) evaluate(set, s); // warm up (regexes compile lazily)
    const times: number[] = [];
    for (let r = 0; r < 5; r++) for (const s of snaps) times.push(timeUs(() => evaluate(set, s)));
    all.push(...times);
    lines.push(`${agent} 80x24: median ${median(times).toFixed(1)} µs over ${snaps.length} real frames`);
  }
  const big: number[] = [];
  for (const l of labels().filter((x) => x.file.includes('160x45') && !x.file.endsWith('.ansi.txt'))) {
    const set = ruleSetFor(builtin(), l.agent);
    const s = await screenFromText(fixture(l.file), { title: l.title });
    for (let r = 0; r < 20; r++) evaluate(set, s);
    for (let r = 0; r < 20; r++) big.push(timeUs(() => evaluate(set, s)));
  }
  lines.push(`160x45 captures: median ${median(big).toFixed(1)} µs`);
  for (const l of lines) t.diagnostic(l);
  assert.ok(median(all) < 200, `median ${median(all)} µs`);
  assert.ok(median(big) < 400, `median ${median(big)} µs`);
});

test('a settled pane costs nothing: no timer, no evaluation until its screen changes', () => {
  const set = ruleSetFor(builtin(), 'claude');
  const det = createDetector(set);
  const snaps = frames('claude/recording/80x24.frames.jsonl').events.flatMap((e) => (e.kind === 'frame' ? [e] : []));
  const last = snaps[snaps.length - 1];
  det.update(last.snap, last.t, { changed: true });
  for (let at = det.nextTickAt(); at !== undefined; at = det.nextTickAt()) det.tick(at);
  assert.equal(det.nextTickAt(), undefined);
  // a busy pane that holds still (spinner glyph frozen) needs no timer either
  const busy = snaps.find((e) => evaluate(set, e.snap)?.busy)!;
  det.update(busy.snap, busy.t + 100_000, { changed: true });
  for (let at = det.nextTickAt(); at !== undefined; at = det.nextTickAt()) det.tick(at);
  assert.equal(det.current()?.state, 'working');
  assert.equal(det.nextTickAt(), undefined);
});
