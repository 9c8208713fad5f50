// Themes: the built-ins are complete and clean, user themes override, bad themes fall back to default.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { THEME_ROLES, builtinThemesDir, listThemes, loadTheme, normaliseColor } from '../../src/config/themes.js';

function userDir(t: { after(fn: () => void): void }, files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'castellan-themes-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const COLOR = /^(#[0-9a-f]{6}|ansi:\d{1,3}|default)$/;

test('the built-in themes directory resolves to <repo>/themes', () => {
  assert.ok(existsSync(join(builtinThemesDir(), 'default.toml')));
  assert.deepEqual(listThemes({}).map((t) => [t.name, t.builtin]), [['default', true], ['high-contrast', true], ['light', true]]);
});

test('every built-in theme loads cleanly with every role styled', () => {
  for (const name of ['default', 'light', 'high-contrast']) {
    const { theme, diagnostics } = loadTheme(name, {});
    assert.deepEqual(diagnostics, [], name);
    assert.equal(theme.name, name);
    assert.ok(theme.description, name);
    assert.deepEqual(Object.keys(theme.roles).sort(), [...THEME_ROLES].sort(), name);
    for (const role of THEME_ROLES) {
      const style = theme.roles[role];
      assert.ok(style.fg || style.bg || style.inverse, `${name} ${role} has a colour`);
      for (const c of [style.fg, style.bg]) if (c !== undefined) assert.match(c, COLOR, `${name} ${role}`);
    }
  }
});

test('default.toml defines every role itself (it is what the others fall back to)', (t) => {
  // Loading default.toml as a user theme named "probe" shows which roles the file itself defines.
  const text = readFileSync(join(builtinThemesDir(), 'default.toml'), 'utf8');
  const dir = userDir(t, { 'probe.toml': text.replace(/\n"prompt".*\n/, '\n') });
  const probe = loadTheme('probe', { userDir: dir });
  assert.deepEqual(probe.diagnostics, []);
  assert.deepEqual(probe.theme.roles.prompt, loadTheme('default', {}).theme.roles.prompt); // fell back
  for (const role of THEME_ROLES) assert.match(text, new RegExp(`^"${role.replace(/\./g, '\\.')}"\\s*=`, 'm'), role);
});

test('colours normalise to #rrggbb, ansi:N or default', () => {
  assert.equal(normaliseColor('#ABC'), '#aabbcc');
  assert.equal(normaliseColor('#4B5263'), '#4b5263');
  assert.equal(normaliseColor('red'), 'ansi:1');
  assert.equal(normaliseColor('bright-white'), 'ansi:15');
  assert.equal(normaliseColor('Gray'), 'ansi:8');
  assert.equal(normaliseColor('ansi:255'), 'ansi:255');
  assert.equal(normaliseColor('default'), 'default');
  for (const bad of ['ansi:256', '#12345', 'reddish', 'bright-', '', 'rgb(1,2,3)']) assert.equal(normaliseColor(bad), undefined, bad);
});

test('a user theme overrides the built-in of the same name and falls back per role', (t) => {
  const dir = userDir(t, {
    'light.toml': 'name = "light"\n[roles]\n"pane.border" = "red"\n"bar" = { fg = "#fff", bg = "ansi:17", underline = true }\n',
    'mine.toml': 'description = "mine"\n[roles]\n"badge.blocked" = { fg = "bright-red", bold = true }\n',
  });
  const listed = listThemes({ userDir: dir });
  assert.deepEqual(listed.map((x) => [x.name, x.builtin]), [['default', true], ['high-contrast', true], ['light', false], ['mine', false]]);
  const light = loadTheme('light', { userDir: dir });
  const def = loadTheme('default', {}).theme;
  assert.deepEqual(light.diagnostics, []);
  assert.deepEqual(light.theme.roles['pane.border'], { fg: 'ansi:1' });
  assert.deepEqual(light.theme.roles.bar, { fg: '#ffffff', bg: 'ansi:17', underline: true });
  assert.deepEqual(light.theme.roles.prompt, def.roles.prompt);
  const mine = loadTheme('mine', { userDir: dir });
  assert.equal(mine.theme.description, 'mine');
  assert.deepEqual(mine.theme.roles['badge.blocked'], { fg: 'ansi:9', bold: true });
});

test('a missing theme gives a diagnostic and the default theme', () => {
  const r = loadTheme('solarized-nope', {});
  assert.equal(r.theme.name, 'default');
  assert.deepEqual(r.theme.roles, loadTheme('default', {}).theme.roles);
  assert.equal(r.diagnostics.length, 1);
  assert.match(r.diagnostics[0].message, /unknown theme "solarized-nope"/);
  assert.equal(loadTheme('../etc/passwd', {}).theme.name, 'default');
});

test('bad colours, unknown roles and syntax errors: diagnostics with lines, the rest of the theme kept', (t) => {
  const dir = userDir(t, {
    'bad.toml': [
      'name = "bad"',
      '[roles]',
      '"pane.border" = "#12"',
      '"pane.title" = { fg = "blue", blink = true }',
      '"pane.sparkle" = "red"',
      '"bar" = { fg = "red"',
      '"prompt" = "ansi:5"',
      '"overlay" = 7',
    ].join('\n'),
    'garbage.toml': '\u0000[[[ this is not toml = = =\n',
  });
  const def = loadTheme('default', {}).theme;
  const r = loadTheme('bad', { userDir: dir });
  assert.deepEqual(r.theme.roles['pane.border'], def.roles['pane.border']);
  assert.deepEqual(r.theme.roles['pane.title'], { fg: 'ansi:4' });
  assert.deepEqual(r.theme.roles.bar, def.roles.bar);
  assert.deepEqual(r.theme.roles.prompt, { fg: 'ansi:5' });
  assert.deepEqual(r.theme.roles.overlay, def.roles.overlay);
  assert.deepEqual(
    r.diagnostics.map((d) => [d.line, d.severity]),
    [[3, 'error'], [4, 'warning'], [5, 'warning'], [6, 'error'], [8, 'error']],
  );
  const g = loadTheme('garbage', { userDir: dir });
  assert.deepEqual(g.theme.roles, def.roles);
  assert.ok(g.diagnostics.length > 0);
});

test('listing themes sorts without ICU collation (localeCompare faults ~2 MB of collation data into the server)', (t) => {
  const dir = userDir(t, { 'Zed.toml': 'description = "z"\n', 'alpha.toml': 'description = "a"\n', 'Beta.toml': 'description = "b"\n' });
  const own = String.prototype.localeCompare;
  String.prototype.localeCompare = () => {
    throw new Error('localeCompare called');
  };
  try {
    assert.deepEqual(listThemes({ userDir: dir }).map((x) => x.name), ['alpha', 'Beta', 'default', 'high-contrast', 'light', 'Zed']);
  } finally {
    String.prototype.localeCompare = own;
  }
});
