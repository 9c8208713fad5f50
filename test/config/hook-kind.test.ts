// `kind`, the hooks contract's alias of `event`: every spelling, both keys agreeing or not, and a hook written with it firing.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseConfigText } from '../../src/config/load.js';
import { HOOK_EVENTS, HOOK_EVENT_ALIASES } from '../../src/config/schema.js';
import { governPreToolUse } from '../../src/hooks/pipeline.js';
import { makeWorld } from '../hooks/helpers.js';

const w = makeWorld();
after(() => w.cleanup());

test('`kind` names the event exactly like `event`, in every PascalCase and snake_case spelling', () => {
  const spellings = [...HOOK_EVENTS, ...Object.keys(HOOK_EVENT_ALIASES)];
  const text = spellings.map((e, i) => `[[hooks.hooks]]\nkind = "${e}"\ncommand = "./h${i}.sh"\n`).join('');
  const { value, diagnostics } = parseConfigText(text, 'c.toml');
  assert.deepEqual(diagnostics, []);
  const expected = spellings.map((e) => (HOOK_EVENTS as readonly string[]).includes(e) ? e : HOOK_EVENT_ALIASES[e]);
  assert.deepEqual(value.hooks?.hooks?.map((h) => h.event), expected);
  // The entry comes out as if written with `event`: no `kind` key left for anything downstream to trip on.
  assert.ok(value.hooks?.hooks?.every((h) => !('kind' in h)));
});

test('both keys: the same event (any spelling) is fine; different events are an error naming both; neither is missing', () => {
  const { value, diagnostics } = parseConfigText(
    `[[hooks.hooks]]
event = "PreToolUse"
kind = "pre_tool_use"
command = "./same.sh"

[[hooks.hooks]]
event = "PreToolUse"
kind = "PostToolUse"
command = "./differ.sh"

[[hooks.hooks]]
command = "./none.sh"

[[hooks.hooks]]
kind = "OnLunch"
command = "./bad.sh"
`,
    'castellan.toml',
  );
  assert.deepEqual(value.hooks?.hooks?.map((h) => [h.event, h.command]), [['PreToolUse', './same.sh']]);
  const errors = diagnostics.filter((d) => d.severity === 'error').map((d) => [d.line, d.message]);
  assert.equal(errors.length, 3, JSON.stringify(diagnostics));
  assert.match(String(errors[0][1]), /"event" \(PreToolUse\) and "kind" \(PostToolUse\) name different events; use one of them; entry ignored/);
  assert.equal(errors[0][0], 6);
  assert.match(String(errors[1][1]), /missing "event" \(or its alias "kind"\); entry ignored/);
  assert.match(String(errors[2][1]), /unknown event "OnLunch"/);
});

test('a PreToolUse hook written with `kind` runs and denies with its stderr', async () => {
  w.write('home/.castellan/config.toml', '[[hooks.hooks]]\nkind = "PreToolUse"\ncommand = "echo \\"not today\\" >&2; exit 1"\n');
  const o = w.opts();
  const r = await governPreToolUse({ tool: 'shell', argv: ['/bin/sh', '-c', 'true'], cwd: w.project }, o);
  assert.deepEqual([r.decision, r.source, r.reason], ['deny', 'hook', 'not today']);
  assert.ok(o.events.some((e) => e.type === 'hook_run' && e.event === 'PreToolUse'));
});
