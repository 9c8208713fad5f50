// Hostile input to the Enter rule (src/detect/submit.ts): what a user's rule file, a pasted flood or a giant input box
// can do to it. A user's [submit] is ignored (its regex would run with captures, outside linear time), a flood is
// no Enter, and a screen full of box-like rows costs one bounded regex run per Enter.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDetector } from '../../src/detect/detector.js';
import { inputText } from '../../src/detect/engine.js';
import { loadRules, ruleSetFor } from '../../src/detect/rules.js';
import { builtin, snap } from '../detect/support.js';

const RULE = '─'.repeat(40);
const box = (text: string) => snap(['● done', RULE, `❯ ${text}`, RULE, '  ⏸ manual mode on'], { title: '✳ Claude Code' });

test('a user rule file\'s [submit] is ignored with a warning; the built-in one stays', () => {
  const dir = mkdtempSync(join(tmpdir(), 'castellan-submit-'));
  try {
    // a catastrophic pattern a user might write: it must never run
    writeFileSync(join(dir, 'claude.toml'), `agent = "claude"\n[submit]\ninput = '^(a+)+$'\nskip = []\n`);
    const loaded = loadRules({ userDir: dir });
    assert.ok(loaded.diagnostics.some((d) => d.severity === 'warning' && /\[submit\] is read from built-in rule files only/.test(d.message)), JSON.stringify(loaded.diagnostics));
    assert.equal(ruleSetFor(loaded, 'claude').submit?.input.source, ruleSetFor(builtin(), 'claude').submit?.input.source);
    writeFileSync(join(dir, 'aider.toml'), `agent = "aider"\n[submit]\ninput = '^> (.*)$'\n`);
    assert.equal(ruleSetFor(loadRules({ userDir: dir }), 'aider').submit, undefined, 'a new agent gets no [submit] from a user file');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a flood of Enters in one chunk, or a paste ending in one, is no submitted prompt', () => {
  const det = createDetector(ruleSetFor(builtin(), 'claude'), { agent: 'claude' });
  det.update(box(''), 0);
  det.tick(1000);
  det.update(box('x'.repeat(200)), 1000, { input: true });
  assert.equal(det.input('\r'.repeat(100_000), box('x'.repeat(200)), 1100), undefined);
  assert.equal(det.input('y'.repeat(100_000) + '\r', box('x'.repeat(200)), 1100), undefined);
  assert.equal(det.current()?.state, 'idle');
});

test('a huge input box and a screen of box-like rows cost one bounded read per Enter', () => {
  const set = ruleSetFor(builtin(), 'claude');
  const rows = Array.from({ length: 500 }, (_, i) => (i % 2 ? RULE : `❯ ${'z'.repeat(2000)}`));
  const big = snap([...rows, RULE, `❯ ${'q'.repeat(5000)}`, RULE], { cols: 5000 });
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < 200; i++) inputText(set, big);
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  assert.ok(ms < 2000, `200 reads of a 500-row screen took ${ms.toFixed(0)} ms`);
  const det = createDetector(set, { agent: 'claude' });
  det.update(box(''), 0);
  det.tick(1000);
  assert.equal(det.input('\r', big, 1100)?.state, 'working', 'text in a box near the bottom: a prompt');
});
