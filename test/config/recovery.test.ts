// Syntax errors: the broken part is reported with its line and dropped; everything around it survives.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig, parseConfigText } from '../../src/config/load.js';

const errorsAt = (ds: Array<{ severity: string; line?: number }>) => ds.filter((d) => d.severity === 'error').map((d) => d.line);

test('a syntax error in the middle keeps the sections before and after it', () => {
  const { value, diagnostics } = parseConfigText(
    `[ui]
theme = "light"
scrollback = 500

[session]
shell = "/bin/zsh

[keys]
prefix = "C-a"

[limits]
max_depth = 5
`,
    'castellan.toml',
  );
  assert.equal(value.ui?.theme, 'light');
  assert.equal(value.ui?.scrollback, 500);
  assert.equal(value.keys?.prefix, 'C-a');
  assert.equal(value.limits?.max_depth, 5);
  assert.equal(value.session?.shell, undefined);
  assert.deepEqual(errorsAt(diagnostics), [6]);
  assert.match(diagnostics[0].message, /syntax error/);
});

test('good lines of a broken section survive line by line, multi-line values included', () => {
  const { value, diagnostics } = parseConfigText(
    `[ui]
theme = "light
mouse = false
scrollback = 20 30
frame_ms = 16
[governance.plan_verify]
enabled = true
high_risk_tools = [
  "shell",
  "net",
]
allowlisted_tools = nope
`,
    'c.toml',
  );
  assert.deepEqual(value.ui, { mouse: false, frame_ms: 16 });
  assert.deepEqual(value.governance?.plan_verify, { enabled: true, high_risk_tools: ['shell', 'net'] });
  assert.deepEqual(errorsAt(diagnostics), [2, 4, 12]);
});

test('arrays of tables keep their entries when one entry has a syntax error', () => {
  const { value, diagnostics } = parseConfigText(
    `[[hooks.hooks]]
event = "SessionStart"
command = "./one.sh"

[[hooks.hooks]]
event = "PreToolUse
command = "./two.sh"

[[hooks.hooks]]
event = "SessionEnd"
command = "./three.sh"
matcher = """multi
line"""
`,
    'c.toml',
  );
  // The second entry lost its event to the syntax error, so the entry itself is then dropped as invalid.
  assert.deepEqual(value.hooks?.hooks?.map((h) => h.command), ['./one.sh', './three.sh']);
  assert.equal(value.hooks?.hooks?.[1].matcher, 'multi\nline');
  assert.deepEqual(errorsAt(diagnostics), [5, 6]);
});

test('a broken table header drops only that table', () => {
  const { value, diagnostics } = parseConfigText('[ui]\ntheme = "a"\n[session\nshell = "x"\n[limits]\nmax_depth = 1\n', 'c.toml');
  assert.deepEqual(value, { ui: { theme: 'a' }, limits: { max_depth: 1 } });
  assert.deepEqual(errorsAt(diagnostics), [3]);
});

test('an unclosed array does not swallow the tables after it', () => {
  const { value } = parseConfigText('[governance.plan_verify]\nhigh_risk_tools = ["a",\n[ui]\ntheme = "b"\n', 'c.toml');
  assert.deepEqual(value.ui, { theme: 'b' });
});

test('a header-like line inside a multi-line string or array is not a table', () => {
  const { value, diagnostics } = parseConfigText(
    `[session]
shell = """
[ui]
theme = "nope"
"""
[governance.plan_verify]
high_risk_tools = [
["x"]
]
[ui]
theme = "yes"
broken =
`,
    'c.toml',
  );
  assert.equal(value.session?.shell, '[ui]\ntheme = "nope"\n');
  assert.deepEqual(value.ui, { theme: 'yes' });
  // high_risk_tools holds a nested list, which is a schema error for that key only.
  assert.deepEqual(diagnostics.map((d) => [d.line, d.path]), [[7, 'governance.plan_verify.high_risk_tools'], [12, undefined]]);
});

test('duplicate keys and tables are reported, and the first definition wins', () => {
  const { value, diagnostics } = parseConfigText('[ui]\ntheme = "a"\ntheme = "b"\nmouse = false\n[ui]\nscrollback = 1\n', 'c.toml');
  assert.deepEqual(value.ui, { theme: 'a', mouse: false });
  assert.deepEqual(errorsAt(diagnostics), [3, 5]);
});

test('CRLF line endings and a byte-order mark are fine', () => {
  const { value, diagnostics } = parseConfigText('\uFEFF[ui]\r\ntheme = "light"\r\nbad = = 1\r\n[limits]\r\nmax_depth = 4\r\n', 'c.toml');
  assert.equal(value.ui?.theme, 'light');
  assert.equal(value.limits?.max_depth, 4);
  assert.deepEqual(errorsAt(diagnostics), [3]);
});

// A tiny deterministic PRNG so a failing fuzz case can be reproduced from its seed.
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

const PIECES = ['[', ']', '[[', ']]', '{', '}', '"', "'", '"""', "'''", '=', '.', '#', '\n', '\r\n', ' ', '\\', ',',
  'ui', 'hooks', 'hooks.hooks', 'theme', 'event', 'command', 'keys', 'prefix', '1', '-', '1979-05-27', 'true', 'nan',
  '\u0000', '\u001b[31m', 'é', '\uFEFF', '__proto__', 'constructor', '0x', '1e999', '[[hooks.hooks]]\nevent = "session_start"\ncommand = "x"\n'];

test('random garbage never throws from parseConfigText or loadConfig', (t) => {
  const valid = '[ui]\ntheme = "light"\n[[hooks.hooks]]\nevent = "PreToolUse"\ncommand = "./a.sh"\n[keys]\nprefix = "C-a"\n';
  for (let seed = 1; seed <= 400; seed++) {
    const r = rng(seed);
    let text = '';
    const n = Math.floor(r() * 80);
    for (let i = 0; i < n; i++) {
      text += r() < 0.7 ? PIECES[Math.floor(r() * PIECES.length)] : String.fromCharCode(Math.floor(r() * 0x3000));
    }
    // Also splice garbage into a valid file, the more realistic case.
    const cut = Math.floor(r() * valid.length);
    for (const input of [text, valid.slice(0, cut) + text + valid.slice(cut)]) {
      const out = parseConfigText(input, 'fuzz.toml');
      assert.ok(out.value && typeof out.value === 'object', `seed ${seed}`);
      assert.ok(Array.isArray(out.diagnostics), `seed ${seed}`);
    }
  }
  // And a few pathological shapes.
  for (const input of ['['.repeat(5000), '{a='.repeat(2000), 'a = ' + '['.repeat(200) + ']'.repeat(200), '"""'.repeat(999), '\n'.repeat(20000)]) {
    assert.doesNotThrow(() => parseConfigText(input, 'fuzz.toml'));
  }
  t.diagnostic('800 random inputs + 5 pathological ones parsed without throwing');
  assert.doesNotThrow(() => loadConfig({ cwd: '/nonexistent/dir/\u0000x', home: '/also/missing' }));
});
