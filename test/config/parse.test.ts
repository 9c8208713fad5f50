// One file's text → validated partial config + diagnostics: values, aliases, unknown keys, bad entries.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatDiagnostic, parseConfigText } from '../../src/config/load.js';
import { DEFAULT_CONFIG, HOOK_EVENTS, HOOK_EVENT_ALIASES } from '../../src/config/schema.js';

test('a full valid file parses with no diagnostics', () => {
  const { value, diagnostics } = parseConfigText(
    `[ui]
theme = "light"
mouse = false
scrollback = 500
status_position = "top"
pane_borders = "heavy"
frame_ms = 16
notify = "osc9"
window_size = "latest"
copy_mode_keys = "emacs"
[session]
shell = "/bin/zsh"
[keys]
prefix = "C-a"
"prefix |" = "pane.split right"
"prefix %" = "none"
[[hooks.hooks]]
event = "PreToolUse"
command = "./guard.sh"
matcher = "shell|exec"
timeout_ms = 5000
id = "guard"
[governance.plan_verify]
enabled = true
high_risk_tools = ["shell"]
allowlisted_tools = ["read"]
[governance.permissions]
default = "prompt"
shell = "deny"
[agents.claude]
command = "claude"
[limits]
max_depth = 2
max_children = 4
`,
    'castellan.toml',
  );
  assert.deepEqual(diagnostics, []);
  assert.equal(value.ui?.theme, 'light');
  assert.equal(value.ui?.copy_mode_keys, 'emacs');
  assert.deepEqual(value.keys, { prefix: 'C-a', 'prefix |': 'pane.split right', 'prefix %': 'none' });
  assert.deepEqual(value.hooks?.hooks, [{ event: 'PreToolUse', command: './guard.sh', matcher: 'shell|exec', timeout_ms: 5000, id: 'guard' }]);
  assert.deepEqual(value.governance?.permissions, { default: 'prompt', shell: 'deny' });
  assert.deepEqual(value.agents, { claude: { command: 'claude' } });
  assert.deepEqual(value.limits, { max_depth: 2, max_children: 4 });
});

test('an empty file gives an empty partial config', () => {
  assert.deepEqual(parseConfigText('', 'x.toml'), { value: {}, diagnostics: [] });
  assert.deepEqual(parseConfigText('# only a comment\n\n', 'x.toml'), { value: {}, diagnostics: [] });
});

test('the event list and alias map are exported and consistent', () => {
  assert.deepEqual([...HOOK_EVENTS], ['SessionStart', 'SessionEnd', 'PreToolUse', 'PostToolUse']);
  for (const target of Object.values(HOOK_EVENT_ALIASES)) assert.ok(HOOK_EVENTS.includes(target));
});

test('snake_case event aliases are normalised to PascalCase', () => {
  const text = ['session_start', 'session_end', 'pre_tool_use', 'post_tool_use']
    .map((e, i) => `[[hooks.hooks]]\nevent = "${e}"\ncommand = "./h${i}.sh"\n`)
    .join('');
  const { value, diagnostics } = parseConfigText(text, 'c.toml');
  assert.deepEqual(diagnostics, []);
  assert.deepEqual(value.hooks?.hooks?.map((h) => h.event), ['SessionStart', 'SessionEnd', 'PreToolUse', 'PostToolUse']);
});

test('a bad hook entry is dropped alone, with the line of its [[hooks.hooks]] header', () => {
  const { value, diagnostics } = parseConfigText(
    `[[hooks.hooks]]
event = "SessionStart"
command = "./ok.sh"

[[hooks.hooks]]
event = "OnLunch"
command = "./bad.sh"

[[hooks.hooks]]
event = "PreToolUse"

[[hooks.hooks]]
event = "PostToolUse"
command = "./slow.sh"
timeout_ms = 0

[[hooks.hooks]]
event = "SessionEnd"
command = "./ok2.sh"
`,
    'castellan.toml',
  );
  assert.deepEqual(value.hooks?.hooks?.map((h) => h.command), ['./ok.sh', './ok2.sh']);
  const errors = diagnostics.filter((d) => d.severity === 'error');
  assert.deepEqual(errors.map((d) => [d.line, d.path]), [[5, 'hooks.hooks[1]'], [9, 'hooks.hooks[2]'], [12, 'hooks.hooks[3]']]);
  assert.match(errors[0].message, /unknown event "OnLunch"/);
  assert.match(errors[1].message, /missing "command"/);
  assert.match(errors[2].message, /timeout_ms/);
  assert.equal(formatDiagnostic(errors[0]).startsWith('castellan.toml:5: error: hooks.hooks[1]: unknown event'), true);
});

test('a bad scalar falls back alone and the rest of its section stays', () => {
  const { value, diagnostics } = parseConfigText(
    `[ui]
theme = "light"
scrollback = "lots"
mouse = false
frame_ms = 2
status_position = "left"
`,
    'castellan.toml',
  );
  assert.deepEqual(value.ui, { theme: 'light', mouse: false });
  assert.deepEqual(
    diagnostics.map((d) => formatDiagnostic(d)),
    [
      'castellan.toml:3: error: ui.scrollback: expected a whole number between 0 and 1000000, got "lots"',
      'castellan.toml:5: error: ui.frame_ms: expected a whole number between 8 and 1000, got 2',
      'castellan.toml:6: error: ui.status_position: expected one of "bottom", "top", got "left"',
    ],
  );
});

test('a wrong type for a whole section or a key value is an error, not a crash', () => {
  const { value, diagnostics } = parseConfigText('ui = 5\n[keys]\nprefix = 3\n"prefix c" = "window.new"\n', 'c.toml');
  assert.deepEqual(value, { keys: { 'prefix c': 'window.new' } });
  assert.deepEqual(diagnostics.map((d) => [d.line, d.path, d.severity]), [[1, 'ui', 'error'], [3, 'keys.prefix', 'error']]);
});

test('unknown sections and keys warn with their line and stay out of the value', () => {
  const { value, diagnostics } = parseConfigText(
    `theme = "x"
[ui]
theem = "light"
[ui.nested]
a = 1
[plugins]
x = 1
[[hooks.hooks]]
event = "SessionStart"
command = "./a.sh"
comand = "typo"
[governance.permissions]
shell = "maybe"
`,
    'c.toml',
  );
  assert.deepEqual(value.hooks?.hooks, [{ event: 'SessionStart', command: './a.sh' }]);
  assert.deepEqual(value.ui, {});
  assert.equal('plugins' in value, false);
  assert.deepEqual(
    diagnostics.map((d) => [d.line, d.severity, d.path]),
    [
      [1, 'warning', 'theme'],
      [3, 'warning', 'ui.theem'],
      [4, 'warning', 'ui.nested'],
      [6, 'warning', 'plugins'],
      [11, 'warning', 'hooks.hooks[0].comand'],
      [13, 'error', 'governance.permissions.shell'],
    ],
  );
});

test('dotted keys and inline tables are located too', () => {
  const { diagnostics } = parseConfigText('ui.scrollback = -1\nlimits = { max_depth = "deep" }\n', 'c.toml');
  assert.deepEqual(diagnostics.map((d) => [d.line, d.path]), [[1, 'ui.scrollback'], [2, 'limits.max_depth']]);
});

test('the defaults are the documented ones', () => {
  assert.equal(DEFAULT_CONFIG.ui.theme, 'default');
  assert.equal(DEFAULT_CONFIG.ui.scrollback, 10000);
  assert.equal(DEFAULT_CONFIG.ui.frame_ms, 33);
  assert.equal(DEFAULT_CONFIG.keys.prefix, 'C-b');
  assert.deepEqual(DEFAULT_CONFIG.governance.permissions, { default: 'allow' });
  assert.deepEqual(DEFAULT_CONFIG.limits, { max_depth: 3, max_children: 8, keep_children: false });
});
