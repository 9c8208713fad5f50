// A user teaches castellan a new agent with one file in ~/.castellan/detect (signature + rules, no rebuild); hostile
// rule files (malformed, enormous, binary, pathological regexes) are refused or made harmless; a repository cannot.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import detect from '../../src/cli/commands/detect.js';
import type { CliContext } from '../../src/cli/define-command.js';
import { evaluate } from '../../src/detect/engine.js';
import { identify, type ProcInfo } from '../../src/detect/identify.js';
import { loadRules, ruleSetFor } from '../../src/detect/rules.js';
import { resolvePaths } from '../../src/platform/paths.js';
import { FIXTURES, snap } from './support.js';

function withHome(fn: (home: string, dir: string) => Promise<void> | void): Promise<void> {
  const home = mkdtempSync(join(tmpdir(), 'castellan-user-agent-'));
  const dir = join(home, '.castellan', 'detect');
  mkdirSync(dir, { recursive: true });
  return Promise.resolve(fn(home, dir)).finally(() => rmSync(home, { recursive: true, force: true }));
}

function ctx(home: string, cwd = home): CliContext & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return {
    paths: resolvePaths({ env: { HOME: home } }), env: { HOME: home }, cwd, version: 'test', stdout, stderr,
    out: (s) => stdout.push(s), err: (s) => stderr.push(s),
    connect: () => { throw new Error('detect must not need a server'); },
  };
}
const run = (c: CliContext, values: Record<string, string | boolean>) => detect.run(c, { values, positionals: [], rest: [] });

// A made-up agent: a node script from the npm package @acme/tern, asking "Proceed? [y/N]" and spinning "⣾ thinking".
const TERN = `agent = "tern"
description = "Tern (made up for this test)"
[identify]
names = ['tern']
packages = ['@acme/tern']
scripts = ['(?:^|/)tern-cli\\.js$']
[fallback]
changing = "unknown"
still = "unknown"
[[rules]]
id = "tern-ask"
state = "blocked"
priority = 100
plain = true
all = ['^Proceed\\? \\[y/N\\]']
[[rules]]
id = "tern-spinner"
state = "working"
priority = 80
busy = true
all = ['^[⣾⣽⣻⢿⡿⣟⣯⣷] thinking']
[[rules]]
id = "tern-prompt"
state = "idle"
priority = 20
all = ['^tern> ']
`;
const P = (pid: number, ppid: number, comm: string, ...argv: string[]): ProcInfo => ({ pid, ppid, comm, argv });
const tree = [P(10, 1, 'bash', 'bash'), P(11, 10, 'node', 'node', '/home/u/.npm/_npx/3/node_modules/@acme/tern/bin/tern-cli.js')];

test('a user file adds an agent: identified from the process tree and detected, with no rebuild', () => withHome((_home, dir) => {
  assert.equal(identify({ processes: tree, rootPid: 10, foregroundPid: 11 }).agent, undefined, 'castellan does not know tern');
  writeFileSync(join(dir, 'tern.toml'), TERN);
  const loaded = loadRules({ userDir: dir });
  assert.deepEqual(loaded.diagnostics, []);
  const id = identify({ processes: tree, rootPid: 10, foregroundPid: 11, signatures: loaded.signatures });
  assert.equal(id.agent, 'tern');
  assert.equal(id.source, 'process');
  const set = ruleSetFor(loaded, id.agent);
  assert.equal(evaluate(set, snap(['Tern 0.1', 'rm -rf build', 'Proceed? [y/N]']))?.rule, 'tern-ask');
  assert.equal(evaluate(set, snap(['Tern 0.1', '⣻ thinking (3s)']))?.state, 'working');
  assert.equal(evaluate(set, snap(['Tern 0.1', 'tern> ']))?.state, 'idle');
  // the built-in agents are untouched by it
  assert.equal(identify({ processes: [P(1, 0, 'node', 'node', '/usr/lib/node_modules/@qwen-code/qwen-code/cli.js')], signatures: loaded.signatures }).agent, 'qwen');
}));

test('castellan detect --command identifies the agent with the user file and names the rule', () => withHome(async (home, dir) => {
  writeFileSync(join(dir, 'tern.toml'), TERN);
  const screen = join(home, 'tern-blocked.txt');
  writeFileSync(screen, 'Tern 0.1\n$ rm -rf build\nProceed? [y/N]\n');
  const c = ctx(home);
  await run(c, { command: 'node /opt/tern/node_modules/@acme/tern/bin/tern-cli.js --fast', screen, json: true });
  const out = JSON.parse(c.stdout.join(''));
  assert.equal(out.agent, 'tern');
  assert.equal(out.state, 'blocked');
  assert.equal(out.rule, 'tern-ask');
  assert.match(out.source, /tern\.toml$/);
  // and a built-in agent by its command, against a lab screen
  const q = ctx(home);
  await run(q, { command: 'node /usr/lib/node_modules/@qwen-code/qwen-code/cli.js', screen: join(FIXTURES, 'qwen/alt-120x40/blocked.txt'), json: true });
  assert.deepEqual([JSON.parse(q.stdout.join('')).agent, JSON.parse(q.stdout.join('')).rule], ['qwen', 'confirmation']);
}));

test('a repository cannot add rules or signatures: only the built-in and the user directory are read', () => withHome(async (home) => {
  // A cloned repository ships rule files where a project config would live, naming bash as an agent.
  const repo = join(home, 'repo');
  for (const d of [join(repo, '.castellan', 'detect'), join(repo, 'detect')]) {
    mkdirSync(d, { recursive: true });
    writeFileSync(join(d, 'evil.toml'), TERN.replace(/tern/g, 'evil').replace("names = ['evil']", "names = ['bash', 'sh']"));
  }
  writeFileSync(join(repo, 'castellan.toml'), '[detect]\nrules = ".castellan/detect"\n');
  const paths = resolvePaths({ env: { HOME: home } });
  assert.equal(paths.userDetect, join(home, '.castellan', 'detect'), 'the server reads the user directory under HOME');
  const loaded = loadRules({ userDir: paths.userDetect });
  assert.ok(!loaded.sets.has('evil') && !loaded.signatures.some((s) => s.agent === 'evil'));
  const c = ctx(home, repo);
  await run(c, { command: 'bash', screen: join(FIXTURES, 'qwen/alt-120x40/idle-start.txt'), json: true });
  assert.equal(JSON.parse(c.stdout.join('')).rules, 'generic', 'bash stays a shell when castellan runs inside the repository');
}));

test('hostile user files: malformed, enormous, binary and bad patterns give diagnostics; the built-in rules still work', () => withHome((_home, dir) => {
  writeFileSync(join(dir, 'broken.toml'), 'agent = "broken"\n[[rules]\nid = ');
  writeFileSync(join(dir, 'huge.toml'), `agent = "huge"\n# ${'x'.repeat(400 * 1024)}\n`);
  writeFileSync(join(dir, 'blob.toml'), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 0, 1, 2, 3, 0xff, 0xfe]));
  writeFileSync(join(dir, 'latin1.toml'), Buffer.from('agent = "caf\xe9"\n', 'latin1'));
  // a lookaround (not RE2) in [identify].scripts: that table is dropped, the file's rules stay
  writeFileSync(join(dir, 'look.toml'), `agent = "look"\n[identify]\nnames = ['look']\nscripts = ['(?<=x)look$']\n[[rules]]\nid = "r"\nstate = "idle"\nall = ['^look> ']\n`);
  // names must be file names: a path or a space is refused by the schema
  writeFileSync(join(dir, 'slash.toml'), `agent = "slash"\n[identify]\nnames = ['/bin/sh']\n`);
  const loaded = loadRules({ userDir: dir });
  const about = (f: string) => loaded.diagnostics.filter((d) => d.file.endsWith(f));
  assert.ok(about('broken.toml').length > 0 && about('broken.toml').every((d) => d.severity === 'error'), JSON.stringify(about('broken.toml')));
  assert.match(about('huge.toml')[0]?.message ?? '', /limit/);
  assert.match(about('blob.toml')[0]?.message ?? '', /binary/);
  assert.match(about('latin1.toml')[0]?.message ?? '', /binary/);
  assert.match(about('look.toml')[0]?.message ?? '', /identify\.scripts.*lookarounds/);
  assert.ok(about('slash.toml').length > 0);
  assert.ok(loaded.sets.has('look') && !loaded.signatures.some((s) => s.agent === 'look' || s.agent === 'slash'));
  for (const a of ['broken', 'huge', 'blob']) assert.ok(!loaded.sets.has(a), a);
  // the built-in rules and signatures are all there
  assert.equal(evaluate(ruleSetFor(loaded, 'qwen'), snap(['─'.repeat(20), '>   Type your message or @path/to/file', '─'.repeat(20)]))?.rule, 'composer');
  assert.equal(identify({ processes: [P(1, 0, 'opencode', 'opencode')], signatures: loaded.signatures }).agent, 'opencode');
}));

test('pathological user patterns run in linear time, in screen rules and in signatures', () => withHome((_home, dir) => {
  writeFileSync(join(dir, 'slow.toml'), `agent = "slow"
[identify]
scripts = ['^(a+)+$', '(x+x+)+y']
[[rules]]
id = "nested"
state = "blocked"
all = ['^(a+)+$']
[[rules]]
id = "alternation"
state = "working"
all = ['^(a|aa)+$', '(x+x+)+y']
`);
  const loaded = loadRules({ userDir: dir });
  assert.deepEqual(loaded.diagnostics, []);
  const set = ruleSetFor(loaded, 'slow');
  // rows a backtracking engine cannot finish: (a+)+ over 3000 a's that end in "!"
  const evil = 'a'.repeat(3000) + '!';
  const screen = snap([evil, 'x'.repeat(3000), evil], { cols: 3001 });
  const t0 = performance.now();
  assert.equal(evaluate(set, screen), undefined);
  const arg = 'a'.repeat(5000) + '!';
  assert.equal(identify({ processes: [P(1, 0, 'node', 'node', arg)], signatures: loaded.signatures }).agent, undefined);
  const ms = performance.now() - t0;
  // backtracking engines take exponential time on these (2^30 steps for 30 a's); RE2 takes milliseconds
  assert.ok(ms < 2000, `${ms.toFixed(0)} ms`);
}));
