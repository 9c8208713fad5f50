// Finding 7: patterns from files (hook matchers, agent hook patterns, user detection rules) match in linear time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compilePattern as agentPattern, parseAgentFile } from '../../src/config/agents.js';
import { evaluate } from '../../src/detect/engine.js';
import { loadRules } from '../../src/detect/rules.js';
import { entryMatches } from '../../src/hooks/agent-hooks.js';
import { matches, matcherProblem } from '../../src/hooks/match.js';

const EVIL = ['(a+)+', '(a|a)*', '(a*)*b', '((a+)+)+$', '(x+x+)+y', '(.*a){20}'];
const VICTIM = 'a'.repeat(30) + '!';
/** CPU time of a call: what it costs the event loop (this machine may be busy with other work). */
const ms = (fn: () => unknown) => {
  const c0 = process.cpuUsage();
  fn();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000;
};

test('hook matchers: catastrophic patterns against a 30-character tool name answer in milliseconds', (t) => {
  let worst = 0;
  for (const p of EVIL) {
    worst = Math.max(worst, ms(() => assert.equal(matches(p, VICTIM), false)));
    worst = Math.max(worst, ms(() => matches(p, 'a'.repeat(100_000) + '!')));
  }
  assert.ok(worst < 250, `worst ${worst.toFixed(1)} ms (native backtracking took 4.5 s for the first)`);
  assert.equal(matches('mcp__.*', 'mcp__git__log'), true, 'ordinary patterns still work');
  assert.equal(matches('shell|exec', 'exec'), true);
  assert.match(matcherProblem('(?=x)x') ?? '', /lookarounds are not supported/);
  assert.equal(matches('(?=x)x', 'x'), false, 'an unsupported pattern matches nothing (it never widens a hook)');
  t.diagnostic(`hook matchers: ${EVIL.length} catastrophic patterns, worst ${worst.toFixed(2)} ms`);
});

test('agent hook patterns (frontmatter deny/prompt): linear, whole-name for tools, anywhere for prompts', (t) => {
  let worst = 0;
  const subject = { agentId: 'a1', agentType: 'x' } as Parameters<typeof entryMatches>[3];
  for (const p of EVIL) {
    const e = { type: 'deny' as const, pattern: p };
    worst = Math.max(worst, ms(() => assert.equal(entryMatches(e, 'SubagentStop', { tool_name: VICTIM }, subject), false)));
    worst = Math.max(worst, ms(() => entryMatches(e, 'UserPromptSubmit', { prompt: 'a'.repeat(200_000) + '!' }, subject)));
  }
  assert.ok(worst < 250, `worst ${worst.toFixed(1)} ms`);
  assert.equal(agentPattern('Bash', true)!.test('bash'), true, 'case-insensitive');
  assert.equal(agentPattern('Bash', true)!.test('Bashful'), false, 'whole name');
  assert.equal(agentPattern('rm -rf', false)!.test('please rm -rf /'), true, 'anywhere in a prompt');
  const { diagnostics } = parseAgentFile('---\nname: x\ncommand: a\nhooks:\n  SubagentStop:\n    - type: deny\n      pattern: "(?!Read).*"\n---\n', 'x.md', 'project');
  assert.match(diagnostics[0]?.message ?? '', /lookarounds are not supported/);
  t.diagnostic(`agent hook patterns: worst ${worst.toFixed(2)} ms`);
});

test('user detection rules are linear; built-in rules (reviewed, with lookarounds) still load', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'castellan-rules-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'detect'));
  writeFileSync(join(dir, 'detect', 'claude.toml'), 'agent = "claude"\n[[rules]]\nid = "evil"\nstate = "blocked"\npriority = 999\nregion = "screen"\nall = ["^(a+)+$"]\n[[rules]]\nid = "look"\nstate = "done"\nall = ["(?<=x)y"]\n');
  const loaded = loadRules({ userDir: join(dir, 'detect') });
  assert.ok(loaded.diagnostics.some((d) => /rule "look".*lookarounds are not supported/.test(d.message)), JSON.stringify(loaded.diagnostics));
  assert.equal(loaded.diagnostics.filter((d) => d.file.includes('src/detect/rules')).length, 0, 'built-in rules all compile');
  const set = loaded.sets.get('claude')!;
  const lines = Array.from({ length: 40 }, () => 'a'.repeat(60) + '!');
  const took = ms(() => evaluate(set, { lines, title: '', cursor: { x: 0, y: 0 }, cols: 61, rows: 40 }));
  assert.ok(took < 200, `evaluate took ${took.toFixed(1)} ms`);
  assert.equal(evaluate(set, { lines: ['aaaa'], title: '', cursor: { x: 0, y: 0 }, cols: 80, rows: 1 })?.rule, 'evil', 'the user rule still matches what it should');
  t.diagnostic(`user rule "(a+)+" over a 40x61 screen: ${took.toFixed(2)} ms`);
});
