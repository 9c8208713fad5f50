// Finding 1 and the trust half of 8: an untrusted repository chooses no program, and trust binds to the real repository.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { loadConfig } from '../../src/config/load.js';
import { readTrust, trustFile, trustStatus } from '../../src/config/trust.js';
import { planHooks } from '../../src/hooks/plan.js';
import { PROMPT, tempEnvFor } from '../support/temp-env.js';
import { readPane } from '../support/api.js';
import { waitFor } from '../support/wait-for.js';

function world(t: { after(fn: () => void): void }) {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'castellan-trust-')));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const home = join(root, 'home');
  mkdirSync(home, { recursive: true });
  const store = join(root, 'trust.json');
  const write = (rel: string, text: string) => {
    const p = join(root, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, text);
    return p;
  };
  return { root, home, store, write, trust: () => readTrust(store).data };
}

const EVIL = '[session]\nshell = "/abs/evil.sh"\n[keys]\n"prefix x" = "pane.close"\n[agents.claude]\ncommand = "evil"\n[limits]\nmax_depth = 60\nmax_children = 2\n[ui]\ntheme = "light"\n';

test('an untrusted castellan.toml chooses no shell, no keys, no agent settings; looks and tighter limits apply', (t) => {
  const w = world(t);
  const file = w.write('repo/castellan.toml', EVIL);
  const r = loadConfig({ cwd: join(w.root, 'repo'), home: w.home, trust: w.trust() });
  assert.equal(r.config.session.shell, '', 'the shell stays the user\'s');
  assert.equal(r.config.keys['prefix x'], undefined);
  assert.deepEqual(r.config.agents, {});
  assert.equal(r.config.limits.max_depth, 3, 'a looser limit is ignored');
  assert.equal(r.config.limits.max_children, 2, 'a tighter limit applies');
  assert.equal(r.config.ui.theme, 'light', 'appearance applies');
  const ignored = r.diagnostics.filter((d) => /ignored: .* is not trusted/.test(d.message)).map((d) => [d.path, d.line]);
  assert.deepEqual(ignored.map(([p]) => p).sort(), ['agents.claude.command', 'keys."prefix x"', 'limits.max_depth', 'session.shell'].sort());
  assert.deepEqual(ignored.find(([p]) => p === 'session.shell'), ['session.shell', 2], 'with the file\'s line');
  assert.ok(r.diagnostics.every((d) => d.file === file));
  // Once trusted, the same file applies in full; once changed, it is inert again.
  trustFile(w.store, file);
  const trusted = loadConfig({ cwd: join(w.root, 'repo'), home: w.home, trust: w.trust() });
  assert.equal(trusted.config.session.shell, '/abs/evil.sh');
  assert.deepEqual(trusted.diagnostics, []);
  writeFileSync(file, EVIL + '# edited\n');
  const changed = loadConfig({ cwd: join(w.root, 'repo'), home: w.home, trust: w.trust() });
  assert.equal(changed.config.session.shell, '');
  assert.ok(changed.diagnostics.some((d) => d.path === 'session.shell' && /changed since it was trusted/.test(d.message)));
});

test('without a trust store nothing in a repository is trusted (fail closed)', (t) => {
  const w = world(t);
  w.write('repo/.castellan/local.toml', '[session]\nshell = "/x"\n');
  assert.equal(loadConfig({ cwd: join(w.root, 'repo'), home: w.home }).config.session.shell, '');
  w.write('home/.castellan/config.toml', '[session]\nshell = "/mine"\n');
  assert.equal(loadConfig({ cwd: join(w.root, 'repo'), home: w.home }).config.session.shell, '/mine', 'the user layer needs no trust');
});

test('a config symlinked to a trusted repository\'s file is not trusted in the repository that links it', (t) => {
  const w = world(t);
  const a = w.write('a/castellan.toml', '[[hooks.hooks]]\nevent = "PreToolUse"\ncommand = "./check.sh"\n[session]\nshell = "/bin/a"\n');
  trustFile(w.store, a, join(w.root, 'a'));
  mkdirSync(join(w.root, 'b'));
  symlinkSync(a, join(w.root, 'b', 'castellan.toml'));
  const inA = loadConfig({ cwd: join(w.root, 'a'), home: w.home, trust: w.trust() });
  assert.equal(planHooks(inA)[0].inert, undefined, 'trusted where it was trusted');
  const inB = loadConfig({ cwd: join(w.root, 'b'), home: w.home, trust: w.trust() });
  assert.equal(inB.layers[0].trust, 'untrusted');
  assert.match(planHooks(inB)[0].inert ?? '', /not trusted/, 'B\'s own ./check.sh must not run under A\'s trust');
  assert.equal(inB.config.session.shell, '');
  // A whole .castellan/ directory linked from another repository: bound to the repository it was trusted for.
  const local = w.write('a/.castellan/local.toml', '[session]\nshell = "/bin/a-local"\n');
  trustFile(w.store, local);
  mkdirSync(join(w.root, 'c'));
  symlinkSync(join(w.root, 'a', '.castellan'), join(w.root, 'c', '.castellan'));
  const inC = loadConfig({ cwd: join(w.root, 'c'), home: w.home, trust: w.trust() });
  assert.deepEqual(inC.layers.map((l) => [l.layer, l.trust]), [['local', 'untrusted']]);
  assert.equal(trustStatus(w.trust(), local, undefined, join(w.root, 'a')), 'changed', 'no hash given: never "trusted"');
  // Trusting B explicitly is possible, and binds to B.
  trustFile(w.store, join(w.root, 'b', 'castellan.toml'), join(w.root, 'b'));
  assert.equal(loadConfig({ cwd: join(w.root, 'b'), home: w.home, trust: w.trust() }).config.session.shell, '/bin/a');
});

test('e2e: a pane in an untrusted repository gets the user\'s shell, and `config check` names the ignored setting', async (t) => {
  const env = tempEnvFor(t);
  const repo = join(env.root, 'repo');
  const marker = join(env.root, 'evil-ran');
  mkdirSync(join(repo, '.git'), { recursive: true });
  const evil = join(env.root, 'evil.sh');
  writeFileSync(evil, `#!/bin/sh\ntouch ${marker}\nexec /bin/sh\n`, { mode: 0o755 });
  writeFileSync(join(repo, 'castellan.toml'), `[session]\nshell = "${evil}"\n`);
  const check = await env.cli(['config', 'check'], { cwd: repo });
  assert.match(check.stdout, /castellan\.toml:2: warning: session\.shell: ignored: .* is not trusted/);
  const start = await env.cli(['server', 'start'], { cwd: repo });
  assert.equal(start.code, 0, start.stderr + env.logTail());
  await waitFor(async () => (await readPane(env, 'w1:p1')).some((l) => l.startsWith(PROMPT.trim())), { timeoutMs: 10_000, message: 'the default shell prompt' });
  assert.equal(existsSync(marker), false, 'the repository\'s shell never ran');
});
