// The default binding table: every command parses, keys are canonical and unique, the tmux keys are where tmux has them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCommand } from '../../src/core/commands.js';
import { DEFAULT_BINDINGS, DEFAULT_PREFIX } from '../../src/input/default-keymap.js';
import { normalizeKey } from '../../src/input/keymap.js';

test('every default command parses with parseCommand', () => {
  for (const b of DEFAULT_BINDINGS) {
    const r = parseCommand(b.command);
    assert.ok(r.ok, `${b.key} → ${b.command}: ${!r.ok && r.error}`);
  }
});

test('no duplicate keys, and every key is already canonical', () => {
  const seen = new Set<string>();
  for (const b of DEFAULT_BINDINGS) {
    const id = `${b.table} ${b.key}`;
    assert.ok(!seen.has(id), `duplicate ${id}`);
    seen.add(id);
    const n = normalizeKey(b.key);
    assert.ok(n.ok && n.key === b.key, `${b.key} is not canonical`);
  }
});

test('every row has a description and a group; defaults stay out of the root table', () => {
  for (const b of DEFAULT_BINDINGS) {
    assert.ok(b.description.trim().length > 0, b.key);
    assert.ok(['Panes', 'Windows', 'Agents', 'Copy & paste', 'Session'].includes(b.group), `${b.key}: ${b.group}`);
    assert.equal(b.table, 'prefix', b.key);
  }
});

test('the required bindings are there', () => {
  const want: Record<string, string> = {
    '%': 'pane.split right', '"': 'pane.split down', o: 'pane.focus next', ';': 'pane.focus last',
    Up: 'pane.focus up', Down: 'pane.focus down', Left: 'pane.focus left', Right: 'pane.focus right',
    'C-Up': 'pane.resize up 1', 'C-Left': 'pane.resize left 1', 'M-Down': 'pane.resize down 5', 'M-Right': 'pane.resize right 5',
    z: 'pane.zoom', x: 'client.confirm-close-pane', '&': 'client.confirm-close-window', '{': 'pane.swap prev', '}': 'pane.swap next',
    c: 'window.new', n: 'window.select next', p: 'window.select prev', l: 'window.select last', '0': 'window.select 10', '1': 'window.select 1', '9': 'window.select 9',
    ',': 'window.rename', P: 'pane.rename', d: 'client.detach', '?': 'client.help', ':': 'client.command-prompt', '[': 'client.copy-mode',
    ']': 'client.paste', r: 'client.redraw', T: 'client.theme-next', R: 'agent.reset', W: 'agent.wait', a: 'client.agent-picker',
    j: 'client.jump-waiting', [DEFAULT_PREFIX]: 'client.send-prefix',
  };
  for (const [key, command] of Object.entries(want)) {
    assert.equal(DEFAULT_BINDINGS.find((b) => b.key === key)?.command, command, key);
  }
  const repeats = DEFAULT_BINDINGS.filter((b) => b.repeat).map((b) => b.key).sort();
  assert.deepEqual(repeats, ['C-Down', 'C-Left', 'C-Right', 'C-Up', 'M-Down', 'M-Left', 'M-Right', 'M-Up']);
  assert.equal(DEFAULT_PREFIX, 'C-b');
});
