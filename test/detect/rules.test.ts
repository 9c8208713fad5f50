// Rule files: the built-in directory, user overrides (replace by id, disable, add, replace all), diagnostics.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { evaluate } from '../../src/detect/engine.js';
import { builtinRulesDir, GENERIC_AGENT, loadRules, parseRuleFile, ruleSetFor, type DetectDiagnostic } from '../../src/detect/rules.js';
import { snap } from './support.js';

function withUserDir(files: Record<string, string>, fn: (dir: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'castellan-detect-'));
  try {
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('the built-in directory is found next to the module (tsx) and holds every agent', () => {
  const dir = builtinRulesDir();
  for (const a of ['claude', 'codex', 'gemini', 'pi', 'cursor', 'generic']) assert.ok(existsSync(join(dir, `${a}.toml`)), a);
  const loaded = loadRules();
  assert.deepEqual(loaded.diagnostics, []);
  assert.match(loaded.sets.get('cursor')!.verified ?? '', /UNVERIFIED/);
});

test('an unknown agent (or none) gets the generic rules', () => {
  const loaded = loadRules();
  assert.equal(ruleSetFor(loaded, 'aider').agent, GENERIC_AGENT, 'aider.toml has a signature only');
  assert.equal(ruleSetFor(loaded, 'no-such-agent').agent, GENERIC_AGENT);
  assert.equal(ruleSetFor(loaded, undefined).agent, GENERIC_AGENT);
  const generic = ruleSetFor(loaded, undefined);
  assert.equal(evaluate(generic, snap(['$ ls', 'a b', 'user@host:~/src$'], { cursor: { x: 16, y: 2 } }))?.rule, 'shell-prompt');
  assert.equal(evaluate(generic, snap(['Overwrite file? [y/N]'], { cursor: { x: 22, y: 0 } }))?.state, 'blocked');
  assert.deepEqual(generic.fallback, { changing: 'working', still: 'idle' });
});

test('a user file replaces a rule by id, disables one, adds one; its source is shown', () => {
  withUserDir({
    'claude.toml': `agent = "claude"
[[rules]]
id = "prompt"
state = "idle"
priority = 20
all = ['^MY PROMPT$']
[[rules]]
id = "turn-done"
state = "done"
enabled = false
[[rules]]
id = "my-dialog"
state = "blocked"
priority = 150
plain = true
all = ['Custom question\\?']
`,
  }, (dir) => {
    const loaded = loadRules({ userDir: dir });
    assert.deepEqual(loaded.diagnostics, []);
    const claude = ruleSetFor(loaded, 'claude');
    assert.equal(claude.rules[0].id, 'my-dialog');
    assert.equal(claude.rules[0].source, join(dir, 'claude.toml'));
    assert.ok(!claude.rules.some((r) => r.id === 'turn-done'));
    assert.equal(claude.rules.filter((r) => r.id === 'prompt').length, 1);
    assert.equal(evaluate(claude, snap(['MY PROMPT']))?.rule, 'prompt');
    assert.ok(claude.rules.some((r) => r.id === 'spinner'), 'the other built-ins stay');
  });
});

test('replace = true drops the built-ins; a new agent file adds an agent', () => {
  withUserDir({
    'codex.toml': 'agent = "codex"\nreplace = true\n[fallback]\nstill = "idle"\n[[rules]]\nid = "only"\nstate = "working"\nbusy = true\nall = ["RUNNING"]\n',
    'aider.toml': 'agent = "aider"\n[[rules]]\nid = "ask"\nstate = "blocked"\nregion = "cursor_row"\nall = ["\\\\(Y\\\\)es/\\\\(N\\\\)o"]\n',
  }, (dir) => {
    const loaded = loadRules({ userDir: dir });
    assert.deepEqual(loaded.diagnostics, []);
    assert.deepEqual(ruleSetFor(loaded, 'codex').rules.map((r) => r.id), ['only']);
    assert.equal(ruleSetFor(loaded, 'codex').fallback.still, 'idle');
    const aider = ruleSetFor(loaded, 'aider');
    assert.equal(aider.agent, 'aider');
    assert.equal(evaluate(aider, snap(['Run shell command? (Y)es/(N)o [Yes]:'], { cursor: { x: 36, y: 0 } }))?.rule, 'ask');
  });
});

test('bad files and rules become diagnostics with lines; the rest is used; nothing throws', () => {
  withUserDir({
    'claude.toml': `agent = "claude"
[[rules]]
id = "ok-rule"
state = "blocked"
all = ["fine"]
[[rules]]
id = "bad state"
state = "sleeping"
[[rules]]
id = "bad-regex"
state = "idle"
all = ["(oops"]
[[rules]]
id = "typo"
state = "idle"
alll = ["x"]
`,
    'broken.toml': 'agent = "pi"\n[[rules]\nid = ',
    'nameless.toml': '[[rules]]\nid = "x"\nstate = "idle"\n',
    'gemini.toml': 'agent = "pi"\n',
  }, (dir) => {
    const loaded = loadRules({ userDir: dir });
    const msgs = (file: string): DetectDiagnostic[] => loaded.diagnostics.filter((d) => d.file.endsWith(file));
    const claude = msgs('claude.toml');
    assert.ok(claude.some((d) => d.line === 7 && /rules\[1\]/.test(d.message)), JSON.stringify(claude));
    assert.ok(claude.some((d) => /bad-regex/.test(d.message) && /bad regex/.test(d.message)));
    assert.ok(claude.some((d) => /rules\[3\]/.test(d.message) && /alll/.test(d.message)));
    assert.ok(msgs('broken.toml').length > 0);
    assert.ok(msgs('nameless.toml').some((d) => /agent/.test(d.message)));
    assert.ok(msgs('gemini.toml').some((d) => d.severity === 'warning'));
    const set = ruleSetFor(loaded, 'claude');
    assert.ok(set.rules.some((r) => r.id === 'ok-rule'));
    assert.ok(!set.rules.some((r) => r.id === 'bad-regex' || r.id === 'typo'));
  });
});

test('a missing user directory is fine; an unreadable built-in directory is a diagnostic', () => {
  assert.deepEqual(loadRules({ userDir: join(tmpdir(), 'castellan-no-such-dir-xyz') }).diagnostics, []);
  const none = loadRules({ builtinDir: join(tmpdir(), 'castellan-no-such-dir-xyz') });
  assert.ok(none.diagnostics.some((d) => /generic\.toml/.test(d.message)));
  assert.equal(ruleSetFor(none, 'claude').agent, GENERIC_AGENT, 'still a usable (empty) generic set');
});

test('parseRuleFile reports the line of a bad key inside an array of tables', () => {
  const diags: DetectDiagnostic[] = [];
  parseRuleFile('agent = "x"\n\n[[rules]]\nid = "a"\nstate = "idle"\n\n[[rules]]\nid = "b"\nstate = "idle"\npriority = "high"\n', 'f.toml', diags);
  assert.equal(diags.length, 1);
  assert.equal(diags[0].line, 10);
});
