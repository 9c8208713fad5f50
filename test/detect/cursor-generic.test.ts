// Rules without real captures: Cursor agent (UNVERIFIED, screens rebuilt from public descriptions) and the
// generic rules for shells and unknown programs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { evaluate } from '../../src/detect/engine.js';
import { createDetector } from '../../src/detect/detector.js';
import { ruleSetFor } from '../../src/detect/rules.js';
import { builtin, snap } from './support.js';

// Synthetic, not captured: Cursor's CLI needs a login and had no offline build in the lab. The strings follow
// Cursor's docs and screens other tools have published ("Run this command?", "Run (once) (y)", "Skip (esc
// or n)", "ctrl+c to stop", the "→ Plan, search, build anything" composer between ▄ and ▀ rows).
const bar = (c: string) => c.repeat(60);
const CURSOR = {
  idle: ['  Cursor Agent', '  v2025.10.02', '', bar('▄'), '  → Plan, search, build anything', bar('▀'), '  GPT-5 · 12% · ~/code/x · main'],
  followUp: ['  Hello there.', bar('▄'), '  → Add a follow-up', bar('▀'), '  GPT-5 · 12%'],
  working: ['  Reading files', '  ⬢ Reading…', bar('▄'), '  → Add a follow-up', bar('▀'), '  ctrl+c to stop'],
  approval: ['  Run this command?', '  Not in allowlist: npm test', '  → Run (once) (y)', '    Add Shell(npm) to allowlist? (tab)', '    Auto-run everything (shift+tab)', '    Skip (esc or n)'],
};

test('cursor (unverified): composer idle, busy hint working, approval blocked', () => {
  const cursor = ruleSetFor(builtin(), 'cursor');
  assert.match(cursor.verified ?? '', /UNVERIFIED/);
  assert.equal(evaluate(cursor, snap(CURSOR.idle))?.state, 'idle');
  assert.equal(evaluate(cursor, snap(CURSOR.followUp))?.state, 'idle');
  const w = evaluate(cursor, snap(CURSOR.working));
  assert.deepEqual([w?.state, w?.busy], ['working', true]);
  assert.equal(evaluate(cursor, snap([...CURSOR.working.slice(0, 1), ...CURSOR.approval]))?.state, 'blocked');
});

test('generic: shell prompts are idle, questions blocked, the rest by change over time', () => {
  const g = ruleSetFor(builtin(), 'generic');
  const at = (lines: string[]) => snap(lines, { cursor: { x: lines[lines.length - 1].length, y: lines.length - 1 } });
  for (const prompt of ['user@host:~/src$', 'root@box:/#', 'host%', '~/src ❯', '>>>', 'λ']) {
    assert.equal(evaluate(g, at(['output', prompt]))?.rule, 'shell-prompt', prompt);
  }
  for (const progress of ['[#####     ] 50%', 'copied 12.5%', 'Downloading... 99 %']) {
    assert.equal(evaluate(g, at(['x', progress])), undefined, progress);
  }
  assert.equal(evaluate(g, at(['Do you want to continue? [Y/n]']))?.state, 'blocked');
  assert.equal(evaluate(g, at(['Are you sure you want to continue connecting (yes/no/[fingerprint])?']))?.state, 'blocked');
  assert.equal(evaluate(g, at(['[sudo] password for me:']))?.state, 'blocked');
  assert.equal(evaluate(g, at(['Thinking…', 'press esc to interrupt']))?.busy, true, 'an unknown agent with the usual hint');
});

test('generic over time: output flowing is working, a quiet screen is idle', () => {
  const det = createDetector(ruleSetFor(builtin(), 'generic'));
  let t = 0;
  for (; t < 3000; t += 100) det.update(snap([`line ${t}`]), t, { changed: true });
  assert.equal(det.current()?.state, 'working');
  for (let at = det.nextTickAt(); at !== undefined; at = det.nextTickAt()) det.tick(at);
  assert.equal(det.current()?.state, 'idle');
  assert.equal(det.current()?.rule, 'fallback.still');
});
