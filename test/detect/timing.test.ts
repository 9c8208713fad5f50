// The timing model (issue 17): definitive markers at once, ambiguous ones on the agent's rhythm, hooks and screen confirming each other.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileRuleSet } from '../../src/detect/engine.js';
import { createDetector, DEFAULT_TUNABLES, type Reading } from '../../src/detect/detector.js';
import { BLOCKED_GRACE_MS, DEFAULT_HOOK_GRACE_MS, FRESH_CONFIRM_MS, hookOverrideAt } from '../../src/detect/hook-confirm.js';
import { ruleSchema, type RuleInput } from '../../src/detect/rules-schema.js';
import { snap } from './support.js';

const rules = (list: RuleInput[]) =>
  compileRuleSet({ agent: 't', rules: list.map((r) => ({ rule: ruleSchema.parse(r), source: 'test' })), fallback: { changing: 'unknown', still: 'unknown' } }).set;

const SET = rules([
  { id: 'dialog', state: 'blocked', priority: 100, plain: true, all: ['Proceed\\?'] },
  { id: 'spinner', state: 'working', priority: 80, busy: true, plain: true, all: ['^[⠋⠙⠹] Working'] },
  { id: 'summary', state: 'done', priority: 60, plain: true, hold_ms: 0, all: ['^Worked for \\d+s\\n> '] },
  { id: 'prompt', state: 'idle', priority: 20, plain: true, all: ['^> '] },
]);

/** Runs a turn: a spinner repainting every `beat` ms for `ms`, then `end` (the screen after the turn), ticking like the server. */
function turn(beat: number, end: string[], ms = 3000) {
  const det = createDetector(SET);
  const log: Reading[] = [];
  const note = (r: Reading | undefined) => { if (r?.changed) log.push(r); };
  const until = (t: number) => { for (let at = det.nextTickAt(); at !== undefined && at <= t; at = det.nextTickAt()) note(det.tick(at)); };
  note(det.update(snap(['> ']), 0, { changed: true }));
  until(1000);
  let t = 1000;
  for (; t < 1000 + ms; t += beat) { until(t); note(det.update(snap([`${['⠋', '⠙', '⠹'][(t / beat) % 3 | 0]} Working ${t}`, '> ']), t, { changed: true })); }
  until(t);
  note(det.update(snap(end), t, { changed: true }));
  until(t + 5000);
  return { det, log, endAt: t };
}

test('an ambiguous idle waits twice the agent\'s repaint cadence, within [minSettleMs, holdMs.idle]', () => {
  for (const [beat, want] of [[80, 160], [150, 300], [40, DEFAULT_TUNABLES.minSettleMs], [600, DEFAULT_TUNABLES.holdMs.idle]] as const) {
    const { log, endAt } = turn(beat, ['> ']);
    const idle = log.find((r) => r.state === 'idle' && r.at > endAt)!;
    assert.equal(idle.at - endAt, want, `beat ${beat} ms`);
    assert.equal(idle.definitive, false);
  }
});

test('a definitive marker (hold_ms = 0) is reported with the frame that shows it, whatever the rhythm', () => {
  const { log, endAt } = turn(300, ['Worked for 3s', '> ']);
  const done = log.find((r) => r.state === 'done')!;
  assert.equal(done.at, endAt);
  assert.equal(done.definitive, true);
});

test('a spinner frame missing now and then does not flip the badge at any cadence', () => {
  for (const beat of [40, 80, 150, 300]) {
    const det = createDetector(SET);
    const states: string[] = [];
    for (let t = 0; t < 6000; t += beat) {
      for (let at = det.nextTickAt(); at !== undefined && at <= t; at = det.nextTickAt()) { const r = det.tick(at); if (r) states.push(r.state); }
      const frame = (t / beat) % 9 === 4 ? ['> '] : [`⠋ Working ${t}`, '> ']; // a half-drawn redraw
      const r = det.update(snap(frame), t, { changed: true });
      if (r.changed) states.push(r.state);
    }
    assert.deepEqual(states, ['working'], `beat ${beat} ms`);
  }
});

test('a rule marked definitive keeps the rhythm hold but its reading is definitive (it may end a late hook report)', () => {
  const set = rules([
    { id: 'spinner', state: 'working', priority: 80, busy: true, plain: true, all: ['^[⠋⠙⠹] Working'] },
    { id: 'editor', state: 'idle', priority: 20, plain: true, definitive: true, all: ['^> '] },
  ]);
  const det = createDetector(set);
  for (let t = 0; t <= 1000; t += 80) det.update(snap([`⠋ Working ${t}`, '> ']), t, { changed: true });
  det.update(snap(['> ']), 1040, { changed: true });
  assert.equal(det.current()?.state, 'working', 'still held');
  const idle = det.tick(det.nextTickAt()!)!;
  assert.equal(idle.state, 'idle');
  assert.equal(idle.at - 1040, 160, 'two beats of 80 ms');
  assert.equal(idle.definitive, true);
  assert.throws(() => ruleSchema.parse({ id: 'x', state: 'idle', definitive: 'yes' }));
});

test('a hold_ms in a rule file is validated', () => {
  assert.throws(() => ruleSchema.parse({ id: 'x', state: 'idle', hold_ms: -1 }));
  assert.throws(() => ruleSchema.parse({ id: 'x', state: 'idle', hold_ms: 60_000 }));
  assert.equal(ruleSchema.parse({ id: 'x', state: 'idle', hold_ms: 0 }).hold_ms, 0);
});

const reading = (state: Reading['state'], since: number, o: { plain?: boolean; definitive?: boolean; prev?: Reading['state'] } = {}) =>
  ({ state, since, plain: o.plain ?? true, definitive: o.definitive ?? false, prev: o.prev ?? (state === 'working' ? 'idle' : 'working') });

test('hook confirmation: a screen that changed after the hook spoke corrects it fast; one from before waits the grace', () => {
  const hook = { state: 'working' as const, at: 1000 };
  assert.equal(hookOverrideAt(reading('done', 2000, { definitive: true }), hook), 2000, 'a turn-end line after the hook: at once');
  assert.equal(hookOverrideAt(reading('idle', 2000), hook), 2000 + FRESH_CONFIRM_MS, 'an input box after the hook (an interrupt no hook reports)');
  assert.equal(hookOverrideAt(reading('blocked', 2000), hook), 2000, 'a dialog no hook announced (pi\'s gate)');
  assert.equal(hookOverrideAt(reading('idle', 500), hook), 1000 + DEFAULT_HOOK_GRACE_MS, 'the screen said idle before the prompt: the old grace');
  assert.equal(hookOverrideAt(reading('idle', 2000, { plain: false }), hook), undefined, 'a weak reading never overrides');
  assert.equal(hookOverrideAt(reading('working', 2000), hook), undefined, 'nothing to correct');
  // A shell drawing its first prompt after a hook report (or an agent's start-up screen) is no news about a turn.
  assert.equal(hookOverrideAt(reading('idle', 2000, { prev: 'unknown' }), hook), 2000 + DEFAULT_HOOK_GRACE_MS);
});

test('hook confirmation: a late hook "working" over a definitive turn end is corrected at once unless the pane got input since', () => {
  const late = { state: 'working' as const, at: 2200 }; // Codex's PostToolUse arriving after its "Worked for" line
  const done = reading('done', 2000, { definitive: true });
  assert.equal(hookOverrideAt(done, late, DEFAULT_HOOK_GRACE_MS, 1000), 2200);
  assert.equal(hookOverrideAt(done, late, DEFAULT_HOOK_GRACE_MS, 2100), 2200 + DEFAULT_HOOK_GRACE_MS, 'a prompt typed since: the new turn\'s hook');
  assert.equal(hookOverrideAt(reading('idle', 2000), late, DEFAULT_HOOK_GRACE_MS, 1000), 2200 + DEFAULT_HOOK_GRACE_MS, 'an ambiguous box waits the grace');
});

test('hook confirmation: a late hook "working" over a dialog no key has answered yet ends at once; after a key it waits the grace', () => {
  const late = { state: 'working' as const, at: 1500 }; // pi: agent_start lands after its gate's dialog is drawn
  const dialog = reading('blocked', 1100, { definitive: true });
  assert.equal(hookOverrideAt(dialog, late, DEFAULT_HOOK_GRACE_MS, 1000), 1500);
  assert.equal(hookOverrideAt(dialog, late, DEFAULT_HOOK_GRACE_MS, 1400), 1500 + BLOCKED_GRACE_MS, 'Enter at the dialog: maybe the approval, ahead of the redraw');
});

test('hook confirmation: a dialog drawn after a hook "done" or "idle" (pi\'s gate fires no hook) shows at once; one from before does not', () => {
  assert.equal(hookOverrideAt(reading('blocked', 1500, { definitive: true }), { state: 'done', at: 1000 }), 1500);
  assert.equal(hookOverrideAt(reading('blocked', 1500, { definitive: true }), { state: 'idle', at: 1000 }), 1500);
  assert.equal(hookOverrideAt(reading('blocked', 800, { definitive: true }), { state: 'done', at: 1000 }), undefined);
});

test('hook confirmation: after a hook "blocked", a fresh working screen (the approved tool runs) takes over; an old one never', () => {
  const hook = { state: 'blocked' as const, at: 1000 };
  assert.equal(hookOverrideAt(reading('working', 1500, { definitive: true }), hook), 1500);
  // Codex: PermissionRequest fires (blocked) while the spinner still runs, before the dialog is drawn.
  assert.equal(hookOverrideAt(reading('working', 800, { definitive: true }), hook), undefined);
  assert.equal(hookOverrideAt(reading('idle', 1500), hook), 1500 + FRESH_CONFIRM_MS, 'a rejection (Esc fires no hook)');
  assert.equal(hookOverrideAt(reading('working', 1500), { state: 'done', at: 1000 }), undefined, 'a finished turn is the hook\'s to reopen');
});
