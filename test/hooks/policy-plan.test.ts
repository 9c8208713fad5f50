// The permission table, plan verify (a good plan passes; every kind of bad one is denied) and how the two compose.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { AskQuestion } from '../../src/hooks/emit.js';
import { parsePlanText } from '../../src/hooks/plan-file.js';
import { argvMatches, checkCall, globMatch, parsePlan } from '../../src/hooks/plan-verify.js';
import { governPreToolUse } from '../../src/hooks/pipeline.js';
import { permissionFor } from '../../src/hooks/policy.js';
import { trustFile } from '../../src/config/trust.js';
import { makeWorld, type World } from './helpers.js';

let w: World;
before(() => {
  w = makeWorld();
  w.write(
    'proj/castellan.toml',
    [
      '[governance.permissions]',
      'default = "allow"',
      'rm = "deny"',
      'curl = "prompt"',
      'shell = "allow"',
      '[governance.plan_verify]',
      'enabled = true',
      'high_risk_tools = ["shell", "exec", "curl"]',
      'allowlisted_tools = ["exec"]',
    ].join('\n'),
  );
  trustFile(w.paths.trustFile, join(w.project, 'castellan.toml'));
});
after(() => w.cleanup());

const plan = {
  id: 'release',
  steps: [
    { id: 'test', tool: 'shell', argv: ['npm', 'test'] },
    { id: 'build', tool: 'shell', argv: ['npm', 'run', 'build', '**'], refs: ['test'] },
    { id: 'tag', tool: 'shell', argv: ['git', 'tag', 'v*'], refs: ['build'] },
    { id: 'fetch', tool: 'curl', argv: ['curl', '*'] },
  ],
};
const asks: AskQuestion[] = [];
const fakeAsk = (answer: 'allow' | 'deny') => async (q: AskQuestion) => {
  asks.push(q);
  return { answer, reason: answer === 'allow' ? 'user said yes' : 'user said no' };
};
const call = (tool: string, argv: string[], toolInput?: unknown, extra = {}) => governPreToolUse({ tool, argv, cwd: w.project, toolInput, agentId: 'a1' }, w.opts(extra));

describe('permission policy', () => {
  test('table lookup: tool row, then default, then allow', () => {
    assert.deepEqual(permissionFor('rm', { rm: 'deny', default: 'prompt' }), { permission: 'deny', rule: 'rm' });
    assert.deepEqual(permissionFor('ls', { rm: 'deny', default: 'prompt' }), { permission: 'prompt', rule: 'default' });
    assert.equal(permissionFor('ls', {}).permission, 'allow');
  });

  test('allow, deny, and prompt through a fake ask (allow / deny)', async () => {
    assert.equal((await call('grep', ['grep', 'x'])).decision, 'allow');
    const d = await call('rm', ['rm', '-rf', '/']);
    assert.equal(d.decision, 'deny');
    assert.match(d.reason ?? '', /rm = "deny"/);
    const p1 = await call('curl', ['curl', 'https://x'], { workflow_plan: plan }, { ask: fakeAsk('allow') });
    assert.equal(p1.decision, 'allow');
    assert.equal(p1.source, 'prompt');
    assert.equal(asks.at(-1)?.title, 'Allow curl?');
    const p2 = await call('curl', ['curl', 'https://x'], { workflow_plan: plan }, { ask: fakeAsk('deny') });
    assert.deepEqual([p2.decision, p2.reason], ['deny', 'user said no']);
  });

  test('prompt with no server reachable is denied: "no castellan UI attached"', async () => {
    const r = await call('curl', ['curl', 'x'], { workflow_plan: plan });
    assert.deepEqual([r.decision, r.reason], ['deny', 'no castellan UI attached']);
  });

  test('prompt with prompt: "defer" answers ask (for a bridge whose agent prompts itself)', async () => {
    const r = await call('curl', ['curl', 'x'], { workflow_plan: plan }, { prompt: 'defer' });
    assert.equal(r.decision, 'ask');
  });
});

describe('plan verify', () => {
  test('a good plan passes and names the step', async () => {
    const o = w.opts();
    const r = await governPreToolUse({ tool: 'shell', argv: ['npm', 'run', 'build', '--', '--prod'], cwd: w.project, toolInput: { tool_workflow: plan } }, o);
    assert.equal(r.decision, 'allow');
    const passed = o.events.find((e) => e.type === 'PlanVerifyPassed');
    assert.deepEqual([passed?.step, passed?.plan_id, passed?.tool], ['build', 'release', 'shell']);
  });

  const bad: Array<[string, unknown, string[], string]> = [
    ['missing', undefined, ['npm', 'test'], 'missing'],
    ['malformed (steps not a list)', { steps: 'npm test' }, ['npm', 'test'], 'malformed'],
    ['malformed (JSON text)', '{"steps": [', ['npm', 'test'], 'malformed'],
    ['malformed (** not last)', { steps: [{ id: 'a', tool: 'shell', argv: ['**', 'x'] }] }, ['npm', 'x'], 'malformed'],
    ['malformed (duplicate ids)', { steps: [{ id: 'a', tool: 'shell', argv: ['npm', 'test'] }, { id: 'a', tool: 'shell', argv: ['x'] }] }, ['npm', 'test'], 'malformed'],
    ['call not in plan', plan, ['npm', 'publish'], 'not_in_plan'],
    ['call does not match its named step', { ...plan, step: 'test' }, ['git', 'tag', 'v1'], 'not_in_plan'],
    ['denied tool in a step', { steps: [{ id: 'a', tool: 'shell', argv: ['npm', 'test'] }, { id: 'b', tool: 'rm', argv: ['rm', '**'] }] }, ['npm', 'test'], 'denied_tool'],
    ['unresolved ref', { steps: [{ id: 'a', tool: 'shell', argv: ['npm', 'test'], refs: ['nope'] }] }, ['npm', 'test'], 'unresolved_ref'],
    ['forward ref', { steps: [{ id: 'a', tool: 'shell', argv: ['npm', 'test'], refs: ['b'] }, { id: 'b', tool: 'shell', argv: ['x'] }] }, ['npm', 'test'], 'unresolved_ref'],
    ['live payload field', { steps: [{ id: 'a', tool: 'shell', argv: ['npm', 'test'], input: 'rm -rf ~' }] }, ['npm', 'test'], 'live_payload'],
    ['live payload at the top', { steps: [{ id: 'a', tool: 'shell', argv: ['npm', 'test'] }], data: { token: 'x' } }, ['npm', 'test'], 'live_payload'],
    ['control characters', { steps: [{ id: 'a', tool: 'shell', argv: ['npm', 'te\u001bst'] }] }, ['npm', 'test'], 'live_payload'],
    ['absurdly long pattern', { steps: [{ id: 'a', tool: 'shell', argv: ['npm', 'x'.repeat(513)] }] }, ['npm', 'test'], 'live_payload'],
    ['too many steps', { steps: Array.from({ length: 101 }, (_, i) => ({ id: `s${i}`, tool: 'shell', argv: ['npm', 'test'] })) }, ['npm', 'test'], 'malformed'],
  ];
  for (const [name, p, argv, kind] of bad) {
    test(`denies: ${name}`, async () => {
      const o = w.opts();
      const r = await governPreToolUse({ tool: 'shell', argv, cwd: w.project, toolInput: p === undefined ? {} : { workflow_plan: p } }, o);
      assert.equal(r.decision, 'deny', JSON.stringify(r));
      assert.equal(r.source, 'plan_verify');
      const denied = o.events.find((e) => e.type === 'PlanVerifyDenied');
      assert.equal(denied?.kind, kind, JSON.stringify(denied));
      assert.ok(String(r.reason).startsWith('plan verify: '));
    });
  }

  test('a verifier error denies (fail closed)', async () => {
    const o = w.opts({
      verifier: () => {
        throw new Error('boom');
      },
    });
    const r = await governPreToolUse({ tool: 'shell', argv: ['npm', 'test'], cwd: w.project, toolInput: { workflow_plan: plan } }, o);
    assert.equal(r.decision, 'deny');
    assert.equal(o.events.find((e) => e.type === 'PlanVerifyDenied')?.kind, 'verifier_error');
  });

  test('allowlisted tools skip plan verify; tools not high-risk are not checked', async () => {
    assert.equal((await call('exec', ['anything'])).decision, 'allow');
    assert.equal((await call('grep', ['grep'])).decision, 'allow');
  });

  test('argv patterns: literal, * one arg, ** rest, globs inside an arg, escapes', () => {
    assert.equal(argvMatches(['git', '*'], ['git', 'status']), true);
    assert.equal(argvMatches(['git', '*'], ['git']), false);
    assert.equal(argvMatches(['git', '*'], ['git', 'a', 'b']), false);
    assert.equal(argvMatches(['git', '**'], ['git']), true);
    assert.equal(argvMatches(['git', '**'], ['git', 'a', 'b']), true);
    assert.equal(argvMatches(['cat', '*.txt'], ['cat', 'notes.txt']), true);
    assert.equal(argvMatches(['cat', '*.txt'], ['cat', 'notes.md']), false);
    assert.equal(argvMatches(['echo', '\\*'], ['echo', '*']), true);
    assert.equal(argvMatches(['echo', '\\*'], ['echo', 'x']), false);
    assert.equal(globMatch('a?c', 'abc'), true);
    // A hostile glob cannot make the verifier slow.
    const t = performance.now();
    assert.equal(globMatch('*a'.repeat(200) + 'b', 'a'.repeat(60_000)), false);
    assert.ok(performance.now() - t < 2000);
  });

  test('plan files: JSON, YAML, TOML, wrapped or bare', async () => {
    const viaJson = await parsePlanText(JSON.stringify({ workflow_plan: plan }), 'p.json');
    const viaYaml = await parsePlanText('tool_workflow:\n  steps:\n    - id: test\n      tool: shell\n      argv: [npm, test]\n', 'p.yaml');
    const viaToml = await parsePlanText('[[steps]]\nid = "test"\ntool = "shell"\nargv = ["npm", "test"]\n', 'p.toml');
    const sniffed = await parsePlanText('[[workflow_plan.steps]]\nid = "test"\ntool = "shell"\nargv = ["npm", "test"]\n', 'plan');
    for (const p of [viaJson, viaYaml, viaToml, sniffed]) assert.equal(checkCall(p, { tool: 'shell', argv: ['npm', 'test'] }, { permissions: {} }).ok, true, JSON.stringify(p));
    await assert.rejects(parsePlanText('steps = [', 'p.toml'), /not a valid plan file/);
    assert.equal(parsePlan({ steps: [{ id: 'a', tool: 'shell', argv: [] }] }).ok, true);
  });
});

describe('composition', () => {
  test('deny short-circuits: no hook runs, no plan is checked', async () => {
    const o = w.opts();
    const r = await governPreToolUse({ tool: 'rm', argv: ['rm', 'x'], cwd: w.project, toolInput: { workflow_plan: { steps: [{ id: 'a', tool: 'rm', argv: ['rm', 'x'] }] } } }, o);
    assert.equal(r.decision, 'deny');
    assert.equal(r.source, 'policy');
    assert.deepEqual(o.events.map((e) => e.type), ['governance_decision']);
  });

  test('a passing plan never turns prompt into allow', async () => {
    const o = w.opts({ ask: fakeAsk('deny') });
    const r = await governPreToolUse({ tool: 'curl', argv: ['curl', 'https://x'], cwd: w.project, toolInput: { workflow_plan: plan } }, o);
    assert.ok(o.events.some((e) => e.type === 'PlanVerifyPassed'));
    assert.deepEqual([r.decision, r.source], ['deny', 'prompt']);
  });

  test('a failing plan denies a prompt tool without asking', async () => {
    const before = asks.length;
    const r = await call('curl', ['curl', 'a', 'b'], { workflow_plan: plan }, { ask: fakeAsk('allow') });
    assert.deepEqual([r.decision, r.source], ['deny', 'plan_verify']);
    assert.equal(asks.length, before);
  });
});
