// Every labelled real screen (agent-lab captures of Claude, Codex, Gemini, pi, opencode, Kilo, Copilot, Qwen; several sizes;
// plain and ANSI) gives its label.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { evaluate } from '../../src/detect/engine.js';
import { ruleSetFor } from '../../src/detect/rules.js';
import { screenFromText, stillState } from '../../src/cli/commands/detect.js';
import { builtin, fixture, labels } from './support.js';

test('the built-in rule files load without diagnostics', () => {
  assert.deepEqual(builtin().diagnostics, []);
  for (const agent of ['claude', 'codex', 'gemini', 'pi', 'opencode', 'kilo', 'copilot', 'qwen', 'cursor', 'generic']) assert.ok(builtin().sets.has(agent), agent);
});

const all = labels();

test('the fixture set covers every agent, state and size it claims', () => {
  const agents = new Set(all.map((l) => l.agent));
  assert.deepEqual([...agents].sort(), ['claude', 'codex', 'copilot', 'gemini', 'kilo', 'opencode', 'pi', 'qwen']);
  for (const agent of agents) {
    const states = new Set(all.filter((l) => l.agent === agent).map((l) => l.expect));
    for (const s of ['idle', 'working', 'blocked', 'unknown']) assert.ok(states.has(s), `${agent} has a ${s} screen`);
  }
  assert.ok(all.some((l) => l.file.includes('/80x24/')) && all.some((l) => l.file.includes('160x45')) && all.some((l) => l.file.includes('/120x40/')));
  assert.ok(all.filter((l) => l.file.endsWith('.ansi.txt')).length >= 8, 'colour captures');
});

// The four agents added for issue 29 keep a held-out set: their rules were written from the lab's 160x45 captures
// (lab-160x45) and then checked, unchanged, against a second capture made afterwards with other prompts at another
// size (alt-120x40: 84 of 88 right; one real miss fixed, one capture relabelled, see the fixtures README).
test('opencode, kilo, copilot and qwen: a tuning set and a held-out set, each with every state the lab drives', () => {
  const lab = ['after-approve', 'blocked', 'exited', 'hook-deny-exit2', 'hook-deny-json', 'idle-done', 'idle-start', 'interrupted', 'user-rejected', 'working', 'working-streaming'];
  for (const agent of ['opencode', 'kilo', 'copilot', 'qwen']) {
    for (const set of ['lab-160x45', 'alt-120x40']) {
      const have = new Set(all.filter((l) => l.file.startsWith(`${agent}/${set}/`)).map((l) => l.file.slice(`${agent}/${set}/`.length).replace(/(\.ansi)?\.txt$/, '')));
      assert.deepEqual([...have].sort(), lab, `${agent} ${set}`);
      for (const s of ['idle', 'working', 'blocked', 'done', 'unknown']) assert.ok(all.some((l) => l.file.startsWith(`${agent}/${set}/`) && l.expect === s), `${agent} ${set} has a ${s} screen`);
    }
  }
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
