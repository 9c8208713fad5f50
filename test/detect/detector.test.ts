// The per-pane detector over time (fake clock): recency, settle, debounce, fast blocked, ticks and cost.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileRuleSet } from '../../src/detect/engine.js';
import { createDetector, DEFAULT_TUNABLES, staleHookOverride, type Reading } from '../../src/detect/detector.js';
import { ruleSchema, type RuleInput } from '../../src/detect/rules-schema.js';
import { ruleSetFor } from '../../src/detect/rules.js';
import { builtin, snap } from './support.js';

const rules = (list: RuleInput[], fallback?: { changing: 'working'; still: 'idle' | 'unknown' }) =>
  compileRuleSet({ agent: 't', rules: list.map((r) => ({ rule: ruleSchema.parse(r), source: 'test' })), fallback }).set;

const SET = rules([
  { id: 'prompt-q', state: 'blocked', priority: 100, plain: true, all: ['Proceed\\?'] },
  { id: 'spinner', state: 'working', priority: 80, busy: true, plain: true, all: ['^[⠋⠙⠹] Working'] },
  { id: 'streaming', state: 'working', priority: 40, all: ['^• '] },
  { id: 'prompt', state: 'idle', priority: 20, plain: true, all: ['^> $'] },
], { changing: 'working', still: 'unknown' });

/** Drives a detector: screens at times, ticking in between like a server timer would. */
function drive(set = SET, opts = {}) {
  const det = createDetector(set, opts);
  const log: Array<{ t: number; state: string; rule?: string }> = [];
  const note = (r: Reading | undefined) => { if (r?.changed) log.push({ t: r.at, state: r.state, rule: r.rule }); };
  let now = 0;
  const until = (t: number) => {
    for (let at = det.nextTickAt(); at !== undefined && at <= t; at = det.nextTickAt()) note(det.tick(at));
    now = t;
  };
  return {
    det, log,
    frame(t: number, lines: string[], info: { changed?: boolean; input?: boolean; title?: string } = {}) {
      until(t);
      const r = det.update(snap(lines, { title: info.title }), t, { changed: info.changed ?? true, input: info.input });
      note(r);
      return r;
    },
    wait(t: number) { until(t); return det.current(); },
    get now() { return now; },
    states: () => log.map((e) => e.state),
  };
}

test('a busy marker is working even on a still screen; it is reported after a one-frame hold', () => {
  const d = drive();
  d.frame(0, ['> ']);
  d.wait(1000);
  assert.equal(d.det.current()?.state, 'idle');
  const r = d.frame(2000, ['⠋ Working', '> ']);
  assert.equal(r.state, 'idle', 'not yet: a spinner repainted for one frame on the way out is no turn');
  d.wait(2000 + DEFAULT_TUNABLES.busyHoldMs);
  assert.equal(d.det.current()?.state, 'working');
  assert.equal(d.det.current()?.busy, true);
  d.wait(60_000); // nothing changes for a minute: the spinner glyph alone keeps it working
  assert.equal(d.det.current()?.state, 'working');
  assert.equal(d.det.nextTickAt(), undefined, 'a steady pane needs no timer');
});

test('a spinner between frames does not flip the badge; a half-drawn frame neither', () => {
  const d = drive();
  d.frame(0, ['⠋ Working', '> ']);
  d.wait(500);
  for (let t = 600; t < 5000; t += 80) {
    const glyph = ['⠋', '⠙', '⠹'][(t / 80) % 3 | 0];
    // every 7th frame is caught mid-redraw: spinner row missing, the prompt alone
    d.frame(t, (t / 80) % 7 === 0 ? ['> '] : [`${glyph} Working`, '> ']);
  }
  assert.deepEqual(d.states(), ['working']);
});

test('working without a busy marker needs recent change, then settles to idle (weak)', () => {
  const d = drive();
  d.frame(0, ['> ']);
  d.wait(1000);
  for (let t = 1000; t <= 4000; t += 100) d.frame(t, ['• streaming ' + 'x'.repeat(t / 100), '> ']);
  assert.equal(d.det.current()?.state, 'working');
  assert.equal(d.det.current()?.plain, false);
  // the stream stops: recency runs out at 4000 + recentMs, then idle must hold its 800 ms
  const quiet = 4000 + DEFAULT_TUNABLES.recentMs;
  d.wait(quiet - 1);
  assert.equal(d.det.current()?.state, 'working');
  d.wait(quiet + DEFAULT_TUNABLES.holdMs.idle);
  assert.equal(d.det.current()?.state, 'idle');
  assert.equal(d.det.current()?.rule, 'streaming~settled');
  assert.equal(d.det.current()?.confidence, 'weak');
  assert.equal(d.det.nextTickAt(), undefined);
});

test('a still screen that matches no rule is never working; a changing one is (fallback)', () => {
  const d = drive();
  d.frame(0, ['compiling 1']);
  for (let t = 100; t < 1500; t += 100) d.frame(t, [`compiling ${t}`]);
  assert.equal(d.det.current()?.state, 'working');
  assert.equal(d.det.current()?.rule, 'fallback.changing');
  d.wait(1400 + DEFAULT_TUNABLES.recentMs + DEFAULT_TUNABLES.holdMs.unknown);
  assert.equal(d.det.current()?.state, 'unknown');
  assert.equal(d.det.current()?.rule, 'fallback.still');
});

test('blocked is reported at once, and leaving it is debounced', () => {
  const d = drive();
  d.frame(0, ['⠋ Working']);
  d.wait(400);
  const r = d.frame(1000, ['Proceed?', '> 1. Yes']);
  assert.equal(r.state, 'blocked', 'no hold for blocked');
  assert.equal(r.changed, true);
  assert.equal(r.plain, true);
  d.frame(1100, ['> ']); // one odd frame while the dialog closes
  d.frame(1150, ['Proceed?', '> 1. Yes']);
  d.wait(3000);
  assert.deepEqual(d.states(), ['working', 'blocked']);
});

test('typing echo is not the agent working', () => {
  const d = drive();
  d.frame(0, ['user text'], { changed: false });
  d.wait(2000);
  assert.equal(d.det.current()?.state, 'unknown');
  for (let t = 2000; t < 4000; t += 150) d.frame(t, [`user text ${t}`], { input: true });
  d.wait(6000);
  assert.deepEqual(d.states(), ['unknown']);
});

test('tick() returns a reading only when the state changes; update() always returns one', () => {
  const d = drive();
  assert.equal(d.det.tick(0), undefined, 'nothing seen yet');
  const first = d.det.update(snap(['> ']), 0, { changed: true });
  assert.equal(first.changed, false);
  assert.equal(first.state, 'unknown', 'before the first hold: unknown');
  assert.equal(d.det.nextTickAt(), DEFAULT_TUNABLES.defaultSettleMs, 'no rhythm seen yet: the default settle');
  assert.equal(d.det.tick(300), undefined);
  const r = d.det.tick(DEFAULT_TUNABLES.defaultSettleMs);
  assert.equal(r?.state, 'idle');
  assert.equal(r?.since, 0, 'since = when the state was first seen');
  assert.equal(d.det.tick(900), undefined);
  const again = d.det.update(snap(['> ']), 1000, { changed: false });
  assert.equal(again.changed, false);
  assert.equal(again.state, 'idle');
});

test('tunables: holds and the recent window can be set per detector', () => {
  const d = drive(SET, { holdMs: { working: 0, idle: 0 }, recentMs: 500 });
  d.frame(0, ['• a', '> ']);
  assert.equal(d.det.current()?.state, 'working');
  d.wait(500);
  assert.equal(d.det.current()?.state, 'idle');
});

test('setRules swaps the rule set (user rules reloaded) without losing time state', () => {
  const d = drive();
  d.frame(0, ['custom marker'], { changed: false });
  d.wait(3000);
  assert.equal(d.det.current()?.state, 'unknown');
  d.det.setRules(rules([{ id: 'mine', state: 'blocked', all: ['custom marker'] }]));
  d.frame(3100, ['custom marker'], { changed: false });
  assert.equal(d.det.current()?.state, 'blocked');
});

test('real Claude rules over a synthetic turn: working → blocked → working → done, no flicker', () => {
  const claude = ruleSetFor(builtin(), 'claude');
  const box = ['────────────────────────────────────────', '❯\u00a0', '────────────────────────────────────────'];
  const d = drive(claude);
  d.frame(0, [...box, '  ⏸ manual mode on · ? for shortcuts']);
  const glyphs = ['·', '✢', '*', '✶', '✻', '✽'];
  for (let t = 1000; t < 4000; t += 100) {
    d.frame(t, ['❯ do it', `${glyphs[(t / 100) % 6]} Pondering… (${Math.floor((t - 1000) / 1000)}s)`, ...box, '  ⏸ manual mode on · esc to interrupt'], { title: (t / 100) % 2 ? '◐ Claude Code' : '◑ Claude Code' });
  }
  d.frame(4000, ['────', ' Bash command', ' Do you want to proceed?', ' ❯ 1. Yes', '   2. No', ' Esc to cancel · Tab to amend'], { title: '✳ Claude Code' });
  d.wait(9000);
  for (let t = 9000; t < 10000; t += 100) d.frame(t, ['❯ do it', `✢ Pondering… (${Math.floor(t / 1000)}s)`, ...box, '  ⏸ manual mode on · esc to interrupt']);
  d.frame(10000, ['❯ do it', '● Done.', '✻ Pondered for 9s · done 9:00 PM', ...box, '  ⏸ manual mode on · ? for shortcuts'], { title: '✳ Claude Code' });
  d.wait(20000);
  assert.deepEqual(d.states(), ['idle', 'working', 'blocked', 'working', 'done']);
  assert.equal(d.det.current()?.plain, true);
});

test('without `changed`, the detector compares screens by value: a same-frame redraw is no activity', () => {
  const det = createDetector(SET);
  det.update(snap(['• a', '> ']), 0);
  for (let t = 100; t < 5000; t += 100) det.update(snap(['• a', '> ']), t); // new objects, same content
  for (let at = det.nextTickAt(); at !== undefined && at <= 5000; at = det.nextTickAt()) det.tick(at);
  assert.equal(det.current()?.state, 'idle');
  det.update(snap(['• a b', '> ']), 5100);
  det.tick(5400);
  assert.equal(det.current()?.state, 'working');
});

test('staleHookOverride: a plain reading from before the hook ends a stale hook "working" or "blocked" only after the grace', () => {
  const d = drive();
  d.frame(0, ['> '], { changed: false });
  d.wait(1000);
  const idle = d.det.current()!;
  assert.equal(idle.plain, true);
  const hook = { state: 'working' as const, at: 2000 };
  assert.equal(staleHookOverride(idle, hook, 3000), false, 'the hook is too fresh');
  assert.equal(staleHookOverride(idle, hook, 7000), true);
  assert.equal(staleHookOverride(idle, { state: 'blocked', at: 0 }, 7000), true, 'a prompt answered with Esc fires no hook: a plain idle ends a stale blocked');
  assert.equal(staleHookOverride(idle, { state: 'idle', at: 0 }, 7000), false, 'nothing to correct');
  const weak = { ...idle, plain: false, confidence: 'weak' as const };
  assert.equal(staleHookOverride(weak, hook, 60_000), false, 'a weak reading never overrides');
  d.frame(8000, ['Proceed?']);
  assert.equal(staleHookOverride(d.det.current(), hook, 8000), true, 'a dialog drawn after the hook spoke takes over a hook "working" at once');
});
