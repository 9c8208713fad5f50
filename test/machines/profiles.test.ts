// Machine profiles, the ssh argv and the bridge hello: every rule, and the hostile files and targets they must refuse.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { PROTOCOL_VERSION } from '../../src/api/protocol.js';
import {
  cleanRemote,
  cleanRemoteAnsi,
  cleanRemoteLines,
  incompatibility,
  MAX_FILE_BYTES,
  nameProblem,
  parseHello,
  ProfilesFileError,
  readProfiles,
  SPOKEN_PROTOCOLS,
  sshArgv,
  targetProblem,
  updateProfiles,
  writeProfiles,
} from '../../src/machines/index.js';

function tmp(t: { after(fn: () => unknown): void }): string {
  const d = mkdtempSync(join(tmpdir(), 'cst-mach-'));
  t.after(() => rmSync(d, { recursive: true, force: true }));
  return d;
}

test('names: letters, digits, _ - . only; no slashes, controls, leading dash or dot, nor "local"', () => {
  for (const ok of ['box', 'build-1', 'gpu_2', 'a.b', 'A'.repeat(64)]) assert.equal(nameProblem(ok), undefined, ok);
  for (const bad of ['', 'a/b', '../x', '.hidden', '-x', 'a b', 'tab\there', 'esc\u001b[2J', 'nl\n', 'A'.repeat(65), 'local', 'é']) {
    assert.ok(nameProblem(bad), `refused: ${JSON.stringify(bad)}`);
  }
});

test('targets: anything ssh takes, but never one that ssh would read as an option', () => {
  for (const ok of ['box', 'user@host', 'ssh://user@host:2222', 'user@[::1]', 'host.example.com']) assert.equal(targetProblem(ok), undefined, ok);
  for (const bad of ['', '-oProxyCommand=touch /tmp/pwned', '-F/etc/x', 'a b', 'host\n-oX', 'x\u0000', 'x'.repeat(256)]) assert.ok(targetProblem(bad), JSON.stringify(bad));
  // The argv puts the target after `--` as well: ssh's own parser stops reading options there.
  const argv = sshArgv({ name: 'box', target: 'user@host', session: 'work' });
  const dash = argv.indexOf('--');
  assert.ok(dash > 0);
  assert.deepEqual(argv.slice(dash), ['--', 'user@host', 'castellan', 'machine', 'bridge', '--session', 'work']);
  assert.deepEqual(argv.slice(0, 3), ['-T', '-o', 'BatchMode=yes']);
  assert.ok(argv.includes('ServerAliveInterval=5') && argv.some((a) => a.startsWith('ConnectTimeout=')));
  assert.throws(() => sshArgv({ name: 'x', target: '-oProxyCommand=sh' }), /starts with '-'/);
  assert.throws(() => sshArgv({ name: 'x', target: 'h', session: 'a;rm -rf ~' }), /invalid session/);
});

test('ssh itself does not read a target after -- as an option (the belt to targetProblem\'s braces)', (t) => {
  const d = tmp(t);
  const mark = join(d, 'pwned');
  try {
    execFileSync('ssh', ['-o', 'BatchMode=yes', '-o', 'ConnectTimeout=1', '--', `-oProxyCommand=touch ${mark}`, 'true'], { stdio: 'ignore', timeout: 10_000 });
  } catch {
    /* ssh fails: it took the word as a host name */
  }
  assert.equal(existsSync(mark), false);
});

test('the profiles file round-trips, is written atomically (0600, no temp left) and keeps only name, target, session', (t) => {
  const d = tmp(t);
  const file = join(d, 'sub', 'machines.json');
  assert.deepEqual(readProfiles(file), [], 'no file: no machines');
  writeProfiles(file, [{ name: 'box', target: 'u@h', session: 's', disabled: true, secret: 'x' } as never]);
  assert.deepEqual(readProfiles(file), [{ name: 'box', target: 'u@h', session: 's', disabled: true }]);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.deepEqual(readdirSync(join(d, 'sub')), ['machines.json']);
  assert.throws(() => updateProfiles(file, () => [{ name: 'a/b', target: 'h' }]), /invalid machine name/);
  assert.deepEqual(readProfiles(file).map((m) => m.name), ['box'], 'a refused change leaves the last good file');
});

test('hostile profiles files are refused with a message naming the file, never a crash', (t) => {
  const d = tmp(t);
  const file = join(d, 'machines.json');
  const cases: Array<[string, string | Buffer, RegExp]> = [
    ['malformed', '{"version":1,"machines":[', /not valid JSON/],
    ['binary', Buffer.from([0x7b, 0x00, 0xff, 0xfe, 0x01]), /not a text file/],
    ['huge', `{"version":1,"machines":[],"pad":"${'x'.repeat(MAX_FILE_BYTES)}"}`, /limit/],
    ['wrong version', '{"version":2,"machines":[]}', /version/],
    ['a name with a slash', '{"version":1,"machines":[{"name":"../etc","target":"h"}]}', /invalid machine name/],
    ['a name with controls', '{"version":1,"machines":[{"name":"a\\u001b[2J","target":"h"}]}', /invalid machine name/],
    ['a forged option target', '{"version":1,"machines":[{"name":"x","target":"-oProxyCommand=touch /tmp/p"}]}', /starts with '-'/],
    ['a target with a newline', '{"version":1,"machines":[{"name":"x","target":"h\\n-oX"}]}', /control/],
    ['an unknown key (a stored secret)', '{"version":1,"machines":[{"name":"x","target":"h","password":"p"}]}', /password|Unrecognized/],
    ['duplicates', '{"version":1,"machines":[{"name":"x","target":"h"},{"name":"x","target":"g"}]}', /appears twice/],
    ['not an object', 'null', /expected object|Expected object|Required/],
    ['too many', JSON.stringify({ version: 1, machines: Array.from({ length: 300 }, (_, i) => ({ name: `m${i}`, target: 'h' })) }), /256/],
  ];
  for (const [what, body, want] of cases) {
    writeFileSync(file, body);
    assert.throws(() => readProfiles(file), (e: unknown) => e instanceof ProfilesFileError && want.test(e.message) && e.message.includes(file), what);
  }
  rmSync(file);
  execFileSync('mkfifo', [file]);
  assert.throws(() => readProfiles(file), /not a regular file/, 'a FIFO at the path does not block');
});

test('the bridge hello: parsed only from its own line, bounded, and negotiated by protocol and capability', () => {
  const good = { castellan_bridge: { protocol: 1, version: '0.1.0', capabilities: ['rpc', 'push'] }, server: { state: 'running', protocol: 1, version: '0.1.0' } };
  const h = parseHello(JSON.stringify(good));
  assert.ok(h);
  assert.equal(incompatibility(h), undefined);
  assert.equal(parseHello('Welcome to box'), undefined);
  assert.equal(parseHello('{"castellan_bridge":'), undefined);
  assert.equal(parseHello(JSON.stringify({ ...good, castellan_bridge: { ...good.castellan_bridge, capabilities: 'rpc' } })), undefined);
  assert.equal(parseHello(`{"castellan_bridge":{"protocol":1,"version":"${'9'.repeat(20_000)}","capabilities":[]},"server":{"state":"running"}}`), undefined);
  assert.match(incompatibility(parseHello(JSON.stringify({ ...good, castellan_bridge: { ...good.castellan_bridge, protocol: 2 } }))!)!, /bridge speaks protocol 2/);
  assert.match(incompatibility(parseHello(JSON.stringify({ ...good, server: { state: 'running', protocol: 7 } }))!)!, /socket protocol 7/);
  assert.match(incompatibility(parseHello(JSON.stringify({ ...good, castellan_bridge: { ...good.castellan_bridge, capabilities: ['push'] } }))!)!, /rpc/);
  assert.deepEqual(SPOKEN_PROTOCOLS, [PROTOCOL_VERSION], 'this side speaks the socket protocol src/api speaks');
});

test('remote text loses every control sequence; --ansi keeps only colours', () => {
  assert.equal(cleanRemote('a\u001b]52;c;ZXZpbA==\u0007b\u009b6n\u001b[2Jc'), 'a]52;c;ZXZpbA==b6n[2Jc');
  assert.equal(cleanRemoteLines('one\n\ttwo\u001b[H\r'), 'one\n\ttwo[H');
  assert.equal(cleanRemoteAnsi('\u001b[1;31mred\u001b[0m \u001b]0;t\u0007 \u001b[2J \u001b[?1049h x\n'), '\u001b[1;31mred\u001b[0m ]0;t [2J [?1049h x\n');
  assert.equal(cleanRemote('x'.repeat(5000)).length, 4000);
});

test('JSON printed for a terminal escapes DEL and C1 too (JSON.stringify leaves U+009B, a CSI, raw)', async () => {
  const { terminalJson } = await import('../../src/machines/index.js');
  const s = terminalJson({ m: 'a\u009b6n\u007f\u001b' });
  assert.equal(s, '{"m":"a\\u009b6n\\u007f\\u001b"}');
  assert.deepEqual(JSON.parse(s), { m: 'a\u009b6n\u007f\u001b' }, 'the data is kept, only escaped');
});

// cli-door.ts is the same door's light half: the fast CLI verbs go through it so a plain call never loads profiles or ssh.
test('src/machines is a room with one door: it imports nothing of src/api, and the rest of castellan only its index (or its light half, cli-door)', async () => {
  const { readdirSync: rd, readFileSync: rf } = await import('node:fs');
  const src = new URL('../../src/', import.meta.url).pathname;
  const walk = (dir: string): string[] => rd(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
  for (const f of walk(src)) {
    const imports = [...rf(f, 'utf8').matchAll(/from '([^']+)'/g)].map((m) => m[1]);
    if (f.includes('/src/machines/')) assert.deepEqual(imports.filter((i) => i.includes('/api/')), [], f);
    else assert.deepEqual(imports.filter((i) => i.includes('machines/') && !/machines\/(index|cli-door)\.js$/.test(i)), [], f);
  }
});

test('a remote message is cleaned everywhere in it before the client sees it: frame rows keep colours, lose commands', async () => {
  const { cleanRemoteDeep } = await import('../../src/machines/index.js');
  const frame = { panes: { 'w1:p1': { cols: 80, rows: 2, lines: [[0, '\u001b[32mok\u001b[0m\u001b]52;c;ZXZpbA==\u0007\u001b[6n']] } }, view: { title: 't\u001b]0;x\u0007', n: 3, ok: true, none: null } };
  assert.deepEqual(cleanRemoteDeep(frame), { panes: { 'w1:p1': { cols: 80, rows: 2, lines: [[0, '\u001b[32mok\u001b[0m]52;c;ZXZpbA==[6n']] } }, view: { title: 't]0;x', n: 3, ok: true, none: null } });
  assert.deepEqual(cleanRemoteDeep({ ['k\u001b[2J']: 1 }), { 'k[2J': 1 }, 'keys too');
});

test('the last-known cache: written per valid name only, and a hostile cache file is ignored, never a crash', async (t) => {
  const { lastKnown, rememberPanes } = await import('../../src/machines/index.js');
  const { resolvePaths } = await import('../../src/platform/paths.js');
  const d = tmp(t);
  const paths = resolvePaths({ env: { HOME: d } });
  rememberPanes(paths, 'box', [{ pane_id: 'w1:p1' }], 1000);
  assert.deepEqual(lastKnown(paths, 'box'), { at: 1000, panes: [{ pane_id: 'w1:p1' }] });
  rememberPanes(paths, '../evil', [{}]);
  assert.equal(lastKnown(paths, '../evil'), undefined);
  assert.deepEqual(readdirSync(join(paths.stateDir, 'machines')), ['box.json']);
  const file = join(paths.stateDir, 'machines', 'box.json');
  for (const body of ['{', 'null', '{"at":"x","panes":[]}', '{"at":1,"panes":{}}', Buffer.from([0, 1, 2]), 'x'.repeat(2 * 1024 * 1024)]) {
    writeFileSync(file, body);
    assert.equal(lastKnown(paths, 'box'), undefined, String(body).slice(0, 20));
  }
  writeFileSync(file, '{"at":1,"panes":[null,1,"s",{"pane_id":"w1:p1"}]}');
  assert.deepEqual(lastKnown(paths, 'box')?.panes, [{ pane_id: 'w1:p1' }]);
});
