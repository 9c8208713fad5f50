// Key-spec grammar (aliases, errors) and building the keymap from defaults plus the user's [keys] table.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildKeymap, normalizeKey, parseKeySpec, type Binding } from '../../src/input/keymap.js';
import { DEFAULT_BINDINGS } from '../../src/input/default-keymap.js';

const key = (s: string): string => {
  const r = normalizeKey(s);
  assert.ok(r.ok, `${s}: ${!r.ok && r.error}`);
  return r.key;
};

test('normalizeKey accepts tmux-ish and editor-ish aliases', () => {
  const cases: Array<[string, string]> = [
    ['^B', 'C-b'], ['^b', 'C-b'], ['C-b', 'C-b'], ['C-B', 'C-b'], ['Ctrl-b', 'C-b'], ['ctrl+b', 'C-b'], ['Control-b', 'C-b'],
    ['alt+x', 'M-x'], ['Alt-x', 'M-x'], ['meta-x', 'M-x'], ['M-X', 'M-X'], ['shift+up', 'S-Up'], ['S-Up', 'S-Up'],
    ['enter', 'Enter'], ['RETURN', 'Enter'], ['pageup', 'PageUp'], ['PgUp', 'PageUp'], ['PPage', 'PageUp'], ['pgdn', 'PageDown'],
    ['esc', 'Escape'], ['backspace', 'BSpace'], ['del', 'Delete'], ['IC', 'Insert'], ['f5', 'F5'], ['space', 'Space'],
    ['shift+tab', 'BTab'], ['S-a', 'A'], ['C-i', 'Tab'], ['C-m', 'Enter'], ['C-[', 'Escape'], ['C-@', 'C-Space'], ['ctrl+space', 'C-Space'],
    ['M-C-b', 'C-M-b'], ['shift+ctrl+alt+left', 'C-M-S-Left'], ['C--', 'C--'], ['M-+', 'M-+'], ['%', '%'], ['"', '"'], ['é', 'é'],
    ['p', 'p'], ['C-\\', 'C-\\'], ['^^', 'C-^'], ['kpenter', 'KPEnter'], [' C-a ', 'C-a'],
  ];
  for (const [input, want] of cases) assert.equal(key(input), want, input);
});

test('normalizeKey is the identity on canonical names', () => {
  for (const k of ['a', 'A', 'C-a', 'C-M-S-Up', 'M-Escape', 'F12', 'C-Space', 'BTab', 'KP+', 'S-Enter', '😀']) assert.equal(key(k), k);
});

test('normalizeKey rejects nonsense with a message', () => {
  for (const bad of ['', '   ', 'Foo', 'C-', 'Ctrl+Nope', 'C-a b', 'F13', '\x01', 'Unknown']) {
    const r = normalizeKey(bad);
    assert.equal(r.ok, false, JSON.stringify(bad));
    assert.ok(!r.ok && r.error.length > 0);
  }
  const seq = normalizeKey('C-a b');
  assert.ok(!seq.ok && /sequences/.test(seq.error));
});

test('parseKeySpec: root vs prefix table', () => {
  assert.deepEqual(parseKeySpec('prefix %'), { ok: true, table: 'prefix', key: '%' });
  assert.deepEqual(parseKeySpec('Prefix ctrl+up'), { ok: true, table: 'prefix', key: 'C-Up' });
  assert.deepEqual(parseKeySpec('M-Left'), { ok: true, table: 'root', key: 'M-Left' });
  assert.deepEqual(parseKeySpec('root alt+left'), { ok: true, table: 'root', key: 'M-Left' });
  assert.deepEqual(parseKeySpec('prefix Space'), { ok: true, table: 'prefix', key: 'Space' });
  assert.deepEqual(parseKeySpec('p'), { ok: true, table: 'root', key: 'p' });
  for (const bad of ['', 'prefix', 'prefix Nope', 'prefix C-a b', 'Nope']) assert.equal(parseKeySpec(bad).ok, false, bad);
});

const find = (bs: Binding[], table: string, k: string) => bs.find((b) => b.table === table && b.key === k);

test('buildKeymap with no user entries is the defaults, prefix C-b', () => {
  const { keymap, diagnostics } = buildKeymap(DEFAULT_BINDINGS, {});
  assert.deepEqual(diagnostics, []);
  assert.equal(keymap.prefix, 'C-b');
  assert.equal(keymap.bindings.length, DEFAULT_BINDINGS.length);
  assert.equal(keymap.lookup('prefix', '%')?.command, 'pane.split right');
  assert.equal(keymap.lookup('root', '%'), undefined);
});

test('buildKeymap adds, replaces and removes', () => {
  const { keymap, diagnostics } = buildKeymap(DEFAULT_BINDINGS, {
    'prefix |': 'pane.split right',
    'prefix -': 'pane.split   down',
    'prefix %': 'none',
    'prefix z': 'pane.close',
    'M-Left': 'pane.focus left',
    'prefix C-k': '-r pane.resize up 2',
  });
  assert.deepEqual(diagnostics, []);
  assert.equal(keymap.lookup('prefix', '%'), undefined);
  const bar = keymap.lookup('prefix', '|');
  assert.deepEqual(bar, { table: 'prefix', key: '|', command: 'pane.split right', description: 'Split the focused pane; the new pane opens on that side', group: 'Custom' });
  assert.equal(keymap.lookup('prefix', '-')?.command, 'pane.split down');
  const z = keymap.lookup('prefix', 'z');
  assert.equal(z?.command, 'pane.close');
  assert.equal(z?.group, 'Panes', 'a replaced binding keeps its group');
  assert.equal(z?.description, 'Close the focused pane (kills its program)');
  assert.equal(keymap.lookup('root', 'M-Left')?.command, 'pane.focus left');
  assert.equal(keymap.lookup('prefix', 'C-k')?.repeat, true);
  assert.ok(find(keymap.bindings, 'prefix', '|'));
  assert.equal(find(keymap.bindings, 'prefix', '%'), undefined);
});

test('buildKeymap: bad keys and commands are skipped with a diagnostic naming the key; the rest apply', () => {
  const { keymap, diagnostics } = buildKeymap(DEFAULT_BINDINGS, {
    'prefix Nope': 'pane.zoom',
    'prefix y': 'pane.explode',
    'prefix e': 'pane.split sideways',
    'prefix v': 42 as unknown as string,
    'prefix |': 'pane.split right',
  });
  assert.equal(keymap.lookup('prefix', '|')?.command, 'pane.split right');
  assert.equal(keymap.lookup('prefix', 'y'), undefined);
  assert.equal(keymap.lookup('prefix', 'e'), undefined);
  const errs = diagnostics.filter((d) => d.severity === 'error');
  assert.deepEqual(errs.map((d) => d.key), ['prefix Nope', 'prefix y', 'prefix e', 'prefix v']);
  assert.ok(errs.every((d) => d.message.includes(d.key!)));
  assert.match(errs[1].message, /unknown command "pane.explode"/);
});

test('buildKeymap: changing the prefix moves send-prefix with it', () => {
  const { keymap, diagnostics } = buildKeymap(DEFAULT_BINDINGS, { prefix: 'ctrl+a' });
  assert.deepEqual(diagnostics, []);
  assert.equal(keymap.prefix, 'C-a');
  assert.equal(keymap.lookup('prefix', 'C-a')?.command, 'client.send-prefix');
  assert.equal(keymap.lookup('prefix', 'C-b'), undefined);
});

test('buildKeymap: a bad prefix keeps C-b and says so', () => {
  const { keymap, diagnostics } = buildKeymap(DEFAULT_BINDINGS, { prefix: 'Ctrl+Banana' });
  assert.equal(keymap.prefix, 'C-b');
  assert.equal(diagnostics.length, 1);
  assert.equal(diagnostics[0].severity, 'error');
  assert.equal(diagnostics[0].key, 'prefix');
  assert.match(diagnostics[0].message, /keeping C-b/);
});

test('buildKeymap warnings: removing nothing, duplicate entries, printable root keys, root binding on the prefix', () => {
  const { keymap, diagnostics } = buildKeymap(DEFAULT_BINDINGS, {
    'prefix F9': 'none',
    'prefix ^G': 'pane.zoom',
    'prefix C-g': 'pane.close',
    q: 'pane.zoom',
    'C-b': 'pane.zoom',
  });
  assert.ok(diagnostics.every((d) => d.severity === 'warning'), JSON.stringify(diagnostics));
  assert.deepEqual(diagnostics.map((d) => d.key), ['prefix F9', 'prefix C-g', 'q', 'C-b']);
  assert.equal(keymap.lookup('prefix', 'C-g')?.command, 'pane.close', 'the later entry wins');
  assert.equal(keymap.lookup('root', 'q')?.command, 'pane.zoom', 'warned, but still bound');
});

test('buildKeymap reports a default whose command does not parse instead of throwing', () => {
  const broken: Binding = { table: 'prefix', key: 'Z', command: 'pane.nope', description: 'x', group: 'x' };
  const { keymap, diagnostics } = buildKeymap([...DEFAULT_BINDINGS, broken], {});
  assert.equal(keymap.lookup('prefix', 'Z'), undefined);
  assert.equal(diagnostics.length, 1);
});
