// Every labelled real screen (agent-lab captures of Claude, Codex, Gemini, pi; several sizes; plain and ANSI) gives its label.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { evaluate } from '../../src/detect/engine.js';
import { ruleSetFor } from '../../src/detect/rules.js';
import { screenFromText, stillState } from '../../src/cli/commands/detect.js';
import { builtin, fixture, labels } from './support.js';

test('the built-in rule files load without diagnostics', () => {
  assert.deepEqual(builtin().diagnostics, []);
  for (const agent of ['claude', 'codex', 'gemini', 'pi', 'cursor', 'generic']) assert.ok(builtin().sets.has(agent), agent);
});

const all = labels();

test('the fixture set covers every agent, state and size it claims', () => {
  const agents = new Set(all.map((l) => l.agent));
  assert.deepEqual([...agents].sort(), ['claude', 'codex', 'gemini', 'pi']);
  for (const agent of agents) {
    const states = new Set(all.filter((l) => l.agent === agent).map((l) => l.expect));
    for (const s of ['idle', 'working', 'blocked', 'unknown']) assert.ok(states.has(s), `${agent} has a ${s} screen`);
  }
  assert.ok(all.some((l) => l.file.includes('/80x24/')) && all.some((l) => l.file.includes('160x45')) && all.some((l) => l.file.includes('/120x40/')));
  assert.ok(all.filter((l) => l.file.endsWith('.ansi.txt')).length >= 8, 'colour captures');
});

for (const l of all) {
  test(`${l.file} reads ${l.expect}`, async () => {
    const snap = await screenFromText(fixture(l.file), { title: l.title });
    const set = ruleSetFor(builtin(), l.agent);
    const match = evaluate(set, snap);
    const state = match ? match.state : set.fallback.still;
    assert.equal(state, l.expect, `rule ${match?.rule ?? '(none)'}; ${l.note}`);
    // A still screen never claims working without an explicit busy marker, except the one capture
    // the lab itself calls HARD (Codex streaming with no title recorded): that one settles to idle.
    if (l.expect === 'working' && !match?.busy) {
      assert.match(l.note, /HARD/, 'only the known-hard capture may lack a busy marker');
      assert.equal(stillState(match, set.fallback), 'idle');
    }
  });
}

test('plain and colour captures of the same screen read the same', async () => {
  const pairs = all.filter((l) => l.file.endsWith('.ansi.txt')).map((l) => [l, all.find((p) => p.file === l.file.replace('.ansi.txt', '.txt'))!] as const);
  assert.ok(pairs.length >= 8);
  for (const [ansi, plain] of pairs) {
    const a = await screenFromText(fixture(ansi.file), { title: ansi.title });
    const p = await screenFromText(fixture(plain.file), { title: plain.title });
    assert.ok(a.ansi && !p.ansi);
    const set = ruleSetFor(builtin(), ansi.agent);
    assert.equal(evaluate(set, a)?.rule, evaluate(set, p)?.rule, ansi.file);
  }
});
