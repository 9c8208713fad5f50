// Start-ups of the real agents in a castellan pane (docs/verification.md): while an agent draws its first
// screen no rule matches; that must not read `working`, or the core turns the first prompt into `done`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createDetector, type Reading } from '../../src/detect/detector.js';
import type { CompiledRuleSet } from '../../src/detect/engine.js';
import { ruleSetFor } from '../../src/detect/rules.js';
import { builtin, frames } from './support.js';

function replay(rel: string, set?: CompiledRuleSet): { reported: Reading[]; last: Reading | undefined } {
  const { meta, events } = frames(rel);
  const det = createDetector(set ?? ruleSetFor(builtin(), meta.agent));
  const reported: Reading[] = [];
  const until = (t: number) => {
    for (let at = det.nextTickAt(); at !== undefined && at <= t; at = det.nextTickAt()) {
      const r = det.tick(at);
      if (r) reported.push(r);
    }
  };
  for (const e of events) {
    until(e.t);
    if (e.kind === 'truth') continue;
    const r = det.update(e.snap, e.t, { changed: true });
    if (r.changed) reported.push(r);
  }
  return { reported, last: det.current() };
}

for (const agent of ['claude', 'codex', 'gemini', 'pi']) {
  const rel = `${agent}/castellan-160x45/launch.frames.jsonl`;
  test(`${rel}: the start-up reads unknown, then idle (never working, so never done)`, () => {
    const { reported, last } = replay(rel);
    assert.deepEqual(reported.filter((r) => r.state !== 'unknown' && r.state !== 'idle').map((r) => `${r.state} ${r.rule}`), []);
    assert.equal(last?.state, 'idle');
    assert.ok(last?.plain, 'the prompt is a plain idle');
  });

  test(`${rel}: with a "working" fallback the same frames would report working (what the verification saw)`, () => {
    const set = ruleSetFor(builtin(), agent);
    const { reported } = replay(rel, { ...set, fallback: { changing: 'working', still: 'unknown' } });
    assert.ok(reported.some((r) => r.state === 'working' && r.rule === 'fallback.changing'), reported.map((r) => r.state).join(' '));
  });
}
