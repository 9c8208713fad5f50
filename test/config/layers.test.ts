// The three layers on disk: discovery, precedence, hooks adding up, file info, unreadable files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { findProjectRoot, loadConfig } from '../../src/config/load.js';
import { mergeLayers } from '../../src/config/layers.js';
import { DEFAULT_CONFIG } from '../../src/config/schema.js';
import { readTrust, trustFile } from '../../src/config/trust.js';

interface Env {
  /** What a directory with no markers of its own resolves to (the temp root, unless tmp sits in a repo). */
  bare: (dir: string) => string;
  home: string;
  project: string;
  write(rel: string, text: string): string;
  /** A trust store in which every named repository file is trusted as it is now. */
  trust(...rels: string[]): ReturnType<typeof readTrust>['data'];
}

function tempEnv(t: { after(fn: () => void): void }): Env {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'castellan-config-')));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const home = join(root, 'home');
  const project = join(root, 'work', 'proj');
  mkdirSync(home, { recursive: true });
  mkdirSync(project, { recursive: true });
  const above = findProjectRoot(dirname(root));
  return {
    bare: (dir) => (above === dirname(root) ? dir : above),
    home,
    project,
    write(rel, text) {
      const p = join(root, rel);
      mkdirSync(dirname(p), { recursive: true });
      writeFileSync(p, text);
      return p;
    },
    trust(...rels) {
      const store = join(root, 'trust.json');
      for (const rel of rels) trustFile(store, join(root, rel), project);
      return readTrust(store).data;
    },
  };
}

const USER = 'home/.castellan/config.toml';
const PROJECT = 'work/proj/castellan.toml';
const LOCAL = 'work/proj/.castellan/local.toml';

test('no files at all: the defaults, no diagnostics', (t) => {
  const env = tempEnv(t);
  const r = loadConfig({ cwd: env.project, home: env.home });
  assert.deepEqual(r.config, DEFAULT_CONFIG);
  assert.deepEqual(r.diagnostics, []);
  assert.deepEqual(r.layers, []);
  assert.deepEqual(r.files.map((f) => [f.layer, f.exists]), [['user', false], ['project', false], ['local', false]]);
});

test('each layer alone is read from its place', (t) => {
  for (const [rel, layer] of [[USER, 'user'], [PROJECT, 'project'], [LOCAL, 'local']] as const) {
    const env = tempEnv(t);
    const path = env.write(rel, `[ui]\ntheme = "${layer}"\n`);
    const r = loadConfig({ cwd: env.project, home: env.home });
    assert.equal(r.config.ui.theme, layer);
    assert.equal(r.config.ui.scrollback, DEFAULT_CONFIG.ui.scrollback);
    assert.deepEqual(r.layers.map((l) => [l.layer, l.path]), [[layer, path]]);
    const info = r.files.find((f) => f.layer === layer);
    assert.equal(info?.exists, true);
    assert.equal(info?.text, `[ui]\ntheme = "${layer}"\n`);
    assert.match(info?.sha256 ?? '', /^[0-9a-f]{64}$/);
  }
});

test('precedence is local > project > user, per key, with [keys] merged entry by entry', (t) => {
  const env = tempEnv(t);
  env.write(USER, '[ui]\ntheme = "u"\nscrollback = 1\nmouse = false\n[keys]\nprefix = "C-a"\n"prefix |" = "pane.split right"\n[governance.permissions]\nshell = "deny"\n');
  env.write(PROJECT, '[ui]\ntheme = "p"\nscrollback = 2\n[keys]\n"prefix -" = "pane.split down"\n[governance.permissions]\nexec = "prompt"\n');
  env.write(LOCAL, '[ui]\ntheme = "l"\n[keys]\n"prefix |" = "none"\n');
  const r = loadConfig({ cwd: join(env.project), home: env.home, trust: env.trust(PROJECT, LOCAL) });
  assert.deepEqual(r.diagnostics, []);
  assert.equal(r.config.ui.theme, 'l');
  assert.equal(r.config.ui.scrollback, 2);
  assert.equal(r.config.ui.mouse, false);
  assert.equal(r.config.ui.frame_ms, 33);
  assert.deepEqual(r.config.keys, { prefix: 'C-a', 'prefix |': 'none', 'prefix -': 'pane.split down' });
  assert.deepEqual(r.config.governance.permissions, { default: 'allow', shell: 'deny', exec: 'prompt' });
  assert.deepEqual(r.layers.map((l) => l.layer), ['user', 'project', 'local']);
});

test('a bad value in a higher layer falls back to the lower layer, not to the default', (t) => {
  const env = tempEnv(t);
  env.write(USER, '[ui]\nscrollback = 777\n');
  env.write(PROJECT, '[ui]\nscrollback = "lots"\ntheme = "p"\n');
  const r = loadConfig({ cwd: env.project, home: env.home });
  assert.equal(r.config.ui.scrollback, 777);
  assert.equal(r.config.ui.theme, 'p');
  assert.deepEqual(r.diagnostics.map((d) => [d.file, d.line, d.path]), [[join(env.project, 'castellan.toml'), 2, 'ui.scrollback']]);
});

test('hooks add up across layers, exact duplicates removed, first copy kept', (t) => {
  const env = tempEnv(t);
  const hook = (event: string, command: string, matcher?: string) =>
    `[[hooks.hooks]]\nevent = "${event}"\ncommand = "${command}"\n${matcher ? `matcher = "${matcher}"\n` : ''}`;
  env.write(USER, hook('SessionStart', './u.sh') + hook('PreToolUse', './guard.sh', 'shell'));
  env.write(PROJECT, hook('session_start', './u.sh') + hook('PreToolUse', './guard.sh', 'exec') + hook('PostToolUse', './p.sh'));
  env.write(LOCAL, hook('PostToolUse', './p.sh') + hook('SessionEnd', './l.sh'));
  const r = loadConfig({ cwd: env.project, home: env.home, trust: env.trust(PROJECT, LOCAL) });
  assert.deepEqual(
    r.config.hooks.hooks.map((h) => [h.event, h.command, h.matcher]),
    [
      ['SessionStart', './u.sh', undefined],
      ['PreToolUse', './guard.sh', 'shell'],
      ['PreToolUse', './guard.sh', 'exec'],
      ['PostToolUse', './p.sh', undefined],
      ['SessionEnd', './l.sh', undefined],
    ],
  );
  // Per-layer values stay available, so trust can be decided by origin.
  assert.equal(r.layers.find((l) => l.layer === 'project')?.value.hooks?.hooks?.length, 3);
});

test('mergeLayers does not mutate its inputs or the defaults', () => {
  const layer = { ui: { theme: 'x' }, keys: { 'prefix x': 'none' } };
  const before = structuredClone(DEFAULT_CONFIG);
  const merged = mergeLayers([layer]);
  merged.keys.prefix = 'C-z';
  merged.governance.plan_verify.high_risk_tools.push('y');
  assert.deepEqual(DEFAULT_CONFIG, before);
  assert.deepEqual(layer, { ui: { theme: 'x' }, keys: { 'prefix x': 'none' } });
});

test('override paths are honoured and an unreadable file is an error diagnostic', (t) => {
  const env = tempEnv(t);
  const custom = env.write('elsewhere/x.toml', '[limits]\nmax_children = 2\n');
  mkdirSync(join(env.project, 'adir.toml'));
  const r = loadConfig({ cwd: env.project, home: env.home, files: { user: custom, project: join(env.project, 'adir.toml') } });
  assert.equal(r.config.limits.max_children, 2);
  assert.equal(r.diagnostics.length, 1);
  assert.equal(r.diagnostics[0].severity, 'error');
  assert.equal(r.diagnostics[0].file, join(env.project, 'adir.toml'));
  assert.match(r.diagnostics[0].message, /cannot read/);
});

test('findProjectRoot walks up to castellan.toml, .castellan/ or .git, else returns cwd', (t) => {
  const env = tempEnv(t);
  const deep = join(env.project, 'a', 'b');
  mkdirSync(deep, { recursive: true });
  assert.equal(findProjectRoot(deep), env.bare(deep));
  env.write('work/proj/.git/HEAD', 'ref: refs/heads/main\n');
  assert.equal(findProjectRoot(deep), env.project);
  mkdirSync(join(env.project, 'a', '.castellan'));
  assert.equal(findProjectRoot(deep), join(env.project, 'a'));
  env.write('work/proj/a/b/castellan.toml', '');
  assert.equal(findProjectRoot(deep), deep);
});

test('the home directory\'s .castellan/ is the user layer, not a project marker', (t) => {
  const env = tempEnv(t);
  env.write(USER, '[ui]\ntheme = "u"\n');
  const inHome = join(env.home, 'notes');
  mkdirSync(inHome);
  const r = loadConfig({ cwd: inHome, home: env.home });
  assert.equal(r.projectRoot, env.bare(inHome));
  assert.equal(r.config.ui.theme, 'u');
  assert.equal(findProjectRoot(inHome), env.home); // without home, the marker is taken at face value
});
