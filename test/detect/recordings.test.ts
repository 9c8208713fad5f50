// Real sessions over time: pty recordings of Claude, Codex, Gemini and pi (agent-lab, 80x24), replayed frame
// by frame through the detector on the recording's own clock and scored against the driver's truth marks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createDetector, type Reading } from '../../src/detect/detector.js';
import { ruleSetFor } from '../../src/detect/rules.js';
import { builtin, frames } from './support.js';

// Around each truth change: the driver marks a prompt when it sends it (the screen follows), and the end of
// a turn only after the idle look held for 1.5 s (the screen was there first).
const GRACE_MS = 2500;

interface Replay { reported: Reading[]; truth: Array<{ t: number; state: string }>; end: number }

function replay(rel: string): Replay {
  const { meta, events } = frames(rel);
  const det = createDetector(ruleSetFor(builtin(), meta.agent));
  const reported: Reading[] = [];
  const truth: Array<{ t: number; state: string }> = [];
  const until = (t: number) => {
    for (let at = det.nextTickAt(); at !== undefined && at <= t; at = det.nextTickAt()) {
      const r = det.tick(at);
      if (r) reported.push(r);
    }
  };
  for (const e of events) {
    if (e.kind === 'truth') { truth.push({ t: e.t, state: e.state }); continue; }
    until(e.t);
    const r = det.update(e.snap, e.t, { changed: true });
    if (r.changed) reported.push(r);
  }
  const end = events[events.length - 1].t;
  until(end);
  return { reported, truth, end };
}

const stateAt = <T extends { t?: number; at?: number; state: string }>(list: T[], t: number): T | undefined => {
  let last: T | undefined;
  for (const e of list) if ((e.at ?? e.t)! <= t) last = e;
  return last;
};

/** Share of 100 ms samples (outside grace windows) where the badge agrees; done counts as idle. */
function score(r: Replay): { agreement: number; samples: number; plainIdleWhileBusy: number } {
  const norm = (s: string | undefined) => (s === 'done' ? 'idle' : s ?? 'unknown');
  let ok = 0;
  let n = 0;
  let plainIdleWhileBusy = 0;
  for (let t = r.truth[0].t; t <= r.end; t += 100) {
    const want = stateAt(r.truth, t)!;
    if (want.state === 'unknown' || r.truth.some((e) => Math.abs(t - e.t) < GRACE_MS)) continue;
    const got = stateAt(r.reported, t);
    n++;
    if (norm(got?.state) === norm(want.state)) ok++;
    if ((want.state === 'working' || want.state === 'blocked') && got?.state === 'idle' && got.plain) plainIdleWhileBusy++;
  }
  return { agreement: ok / n, samples: n, plainIdleWhileBusy };
}

const CASES: Array<[string, number]> = [
  ['claude/recording/80x24.frames.jsonl', 0.95],
  ['codex/recording/80x24.frames.jsonl', 0.95],
  ['gemini/recording/80x24.frames.jsonl', 0.9],
  ['pi/recording/80x24.frames.jsonl', 0.9],
];

for (const [rel, min] of CASES) {
  test(`${rel}: the badge follows the real session`, (t) => {
    const r = replay(rel);
    const s = score(r);
    t.diagnostic(`agreement ${(s.agreement * 100).toFixed(1)}% over ${s.samples} samples; ${r.reported.length} reported changes for ${r.truth.length} truth marks`);
    assert.ok(s.samples > 10);
    assert.ok(s.agreement >= min, `agreement ${s.agreement}`);
    // no flicker: about one reported change per real transition
    assert.ok(r.reported.length <= r.truth.length + 2, `${r.reported.length} changes`);
    // a plain idle while the agent works would let a stale hook be overridden wrongly
    assert.equal(s.plainIdleWhileBusy, 0);
    // every real transition shows up within 1 s after the driver acted (ends of turns are marked by the
    // driver 1.5 s late, so the badge may come first); not the start-up, not a state the driver saw for < 2.5 s (it marks the end of a turn 1.5 s late)
    const norm = (s: string) => (s === 'done' ? 'idle' : s);
    for (const [i, e] of r.truth.entries()) {
      const next = r.truth[i + 1]?.t ?? r.end;
      if (i < 2 || e.state === 'unknown' || norm(e.state) === norm(r.truth[i - 1].state) || next - e.t < 2500) continue;
      const hit = r.reported.find((x) => norm(x.state) === norm(e.state) && x.at >= e.t - 2500 && x.at <= e.t + 1000);
      assert.ok(hit, `${e.state} at ${e.t}`);
    }
    // every permission prompt is reported, and fast
    for (const b of r.truth.filter((e) => e.state === 'blocked')) {
      const hit = r.reported.find((x) => x.state === 'blocked' && Math.abs(x.at - b.t) < 400);
      assert.ok(hit, `blocked at ${b.t} reported within 400 ms`);
      assert.equal(hit.plain, true);
    }
  });
}

test('Codex streaming (no status line, title spinner only) reads working, then done', () => {
  const r = replay('codex/recording/80x24.frames.jsonl');
  const stream = r.truth.find((e, i) => e.state === 'working' && i > 2)!; // the SLOW prompt
  const during = stateAt(r.reported, stream.t + 5000)!;
  assert.equal(during.state, 'working');
  const after = r.truth.find((e) => e.t > stream.t && e.state === 'done')!;
  assert.equal(stateAt(r.reported, after.t + 1500)?.state, 'done');
});

test('after a rejection or an interrupt (no Stop hook) the screen gives a plain idle', () => {
  for (const rel of ['claude/recording/80x24.frames.jsonl', 'pi/recording/80x24.frames.jsonl']) {
    const r = replay(rel);
    const esc = r.truth.filter((e) => e.state === 'idle' && e.t > r.truth[1].t);
    assert.ok(esc.length >= 2, rel);
    for (const e of esc) {
      const got = stateAt(r.reported, e.t + 2000);
      assert.equal(got?.state, 'idle', `${rel} at ${e.t}`);
      assert.equal(got?.plain, true, `${rel} at ${e.t}: plain, so it may end a stale hook "working"`);
    }
  }
});
