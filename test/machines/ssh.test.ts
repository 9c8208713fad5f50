// Machines over a real OpenSSH server on 127.0.0.1: scripts drive a remote castellan's panes with the same verbs.
import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import { sshdSkipReason } from '../support/sshd.js';
import { waitFor } from '../support/wait-for.js';
import { startMachines } from './fixture.js';

const skip = sshdSkipReason();
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

test('herd list, pane send/read and herd wait reach a remote server by --machine, and the output names the machine', { skip, timeout: 120_000 }, async (t) => {
  const { local, remote } = await startMachines(t);
  assert.equal((await remote.cli(['server', 'start'])).code, 0);
  assert.equal((await local.cli(['machine', 'add', 'box', 'castellan-test'])).code, 0);

  const list = await local.cli(['herd', 'list', '--machine', 'box']);
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, /^MACHINE\s+PANE/);
  assert.match(list.stdout, /\nbox\s+w1:p1\s/);
  const json = JSON.parse((await local.cli(['herd', 'list', '--machine', 'box', '--json'])).stdout) as Array<{ machine: string; pane_id: string }>;
  assert.deepEqual(json.map((p) => [p.machine, p.pane_id]), [['box', 'w1:p1']]);

  const sent = await local.cli(['pane', 'send', '--machine', 'box', '--pane', 'w1:p1', '--enter', 'echo', 'hello-$((6*7))']);
  assert.equal(sent.code, 0, sent.stderr);
  await waitFor(async () => (await remote.call<{ text: string }>('pane.read', { pane_id: 'w1:p1' })).text.includes('hello-42'), { timeoutMs: 10_000, message: 'the remote pane to run the command' });
  const read = await local.cli(['pane', 'read', '--machine', 'box', '--pane', 'w1:p1']);
  assert.equal(read.code, 0, read.stderr);
  assert.match(read.stdout, /hello-42/);

  const waited = await local.cli(['herd', 'wait', '--machine', 'box', '--pane', 'w1:p1', '--status', 'idle,unknown', '--timeout-ms', '10000']);
  assert.equal(waited.code, 0, waited.stderr);
  assert.match(waited.stdout, /^w1:p1: /);
  const timedOut = await local.cli(['herd', 'wait', '--machine', 'box', '--pane', 'w1:p1', '--status', 'blocked', '--timeout-ms', '800']);
  assert.equal(timedOut.code, 124, timedOut.stderr);

  const gone = await local.cli(['pane', 'read', '--machine', 'box', '--pane', 'w9:p9']);
  assert.equal(gone.code, 4, gone.stderr);
  assert.match(gone.stderr, /machine box: /);

  // IDs stay per server: the local server (none here) is not asked.
  const none = await local.cli(['herd', 'list']);
  assert.equal(none.code, 3);
  const unknown = await local.cli(['herd', 'list', '--machine', 'nope']);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /no machine named "nope" \(known: box\)/);
});

test('--all-machines lists every machine at once; bad ones get a row saying why, the exit code is 1, and none holds up the rest', { skip, timeout: 120_000 }, async (t) => {
  // A host that accepts TCP and never says a word (ssh waits for its banner): only castellan's deadline ends it.
  const held = new Set<net.Socket>();
  const silent = net.createServer((s) => {
    held.add(s);
    s.on('close', () => held.delete(s));
    s.on('error', () => undefined);
    s.resume();
  });
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  t.after(() => {
    for (const s of held) s.destroy();
    return new Promise<void>((r) => silent.close(() => r()));
  });
  const closed = net.createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const closedPort = (closed.address() as net.AddressInfo).port;
  await new Promise<void>((r) => closed.close(() => r()));

  const { local, remote, sshd } = await startMachines(t, { localEnv: { CASTELLAN_MACHINE_TIMEOUT_MS: '15000' } });
  sshd.addHost('castellan-silent', (silent.address() as net.AddressInfo).port);
  sshd.addHost('castellan-gone', closedPort);
  assert.equal((await remote.cli(['server', 'start'])).code, 0);
  assert.equal((await local.cli(['server', 'start'])).code, 0);
  for (const [name, target, ...more] of [
    ['box', 'castellan-test'],
    ['silent', 'castellan-silent'],
    ['gone', 'castellan-gone'],
    ['bare', 'castellan-test-bare'],
    ['old', 'castellan-test-old'],
    ['nosrv', 'castellan-test', '--session', 'nosrv'],
    ['off', 'castellan-silent'],
  ]) {
    const r = await local.cli(['machine', 'add', name, target, ...more]);
    assert.equal(r.code, 0, r.stderr);
  }
  assert.equal((await local.cli(['machine', 'disable', 'off'])).code, 0);

  const started = Date.now();
  const all = await local.cli(['herd', 'list', '--all-machines'], { timeoutMs: 45_000 });
  const took = Date.now() - started;
  assert.equal(all.code, 1, all.stderr);
  const rows = all.stdout.split('\n');
  const row = (m: string) => rows.filter((r) => r.startsWith(`${m} `)).join('\n');
  assert.match(row('local'), /w1:p1/);
  assert.match(row('box'), /w1:p1/);
  assert.match(row('silent'), /unreachable.*(did not answer within 15000 ms|timed out)/);
  assert.match(row('gone'), /unreachable.*(refused|unreachable)/i);
  assert.match(row('bare'), /unreachable.*castellan is not installed on castellan-test-bare.*npm install -g castellan/);
  assert.match(row('old'), /unreachable.*too old.*upgrade/);
  assert.match(row('nosrv'), /no server.*start one there \(ssh castellan-test castellan --session nosrv server start\)/);
  assert.equal(row('off'), '', 'a disabled machine is left out');
  // Every machine runs at once: the whole listing costs about one deadline (15 s to connect, generous for six ssh
  // logins at once on 2 shared cores at a load of 15; 5 more to answer), not one per bad machine (five of them here).
  assert.ok(took < 30_000, `--all-machines took ${took} ms`);
  const json = JSON.parse((await local.cli(['herd', 'list', '--all-machines', '--json'], { timeoutMs: 45_000 })).stdout) as Array<{ machine: string; code?: string }>;
  assert.deepEqual([...new Set(json.map((r) => r.machine))].sort(), ['bare', 'box', 'gone', 'local', 'nosrv', 'old', 'silent']);
  assert.equal(json.find((r) => r.machine === 'bare')?.code, 'machine_not_installed');
  assert.equal(json.find((r) => r.machine === 'nosrv')?.code, 'not_running');

  // One machine at a time, each failure is its own clear message and exit code.
  const bare = await local.cli(['herd', 'list', '--machine', 'bare']);
  assert.equal(bare.code, 1);
  assert.match(bare.stderr, /castellan is not installed on castellan-test-bare \(machine bare\): install it there/);
  const nosrv = await local.cli(['herd', 'list', '--machine', 'nosrv']);
  assert.equal(nosrv.code, 3, nosrv.stderr);
  const off = await local.cli(['pane', 'read', '--machine', 'off', '--pane', 'w1:p1']);
  assert.equal(off.code, 1);
  assert.match(off.stderr, /machine off is disabled/);
});

test('a login banner before the bridge is skipped; a hostile remote\'s escape sequences never reach the terminal', { skip, timeout: 120_000 }, async (t) => {
  const { local, remote } = await startMachines(t);
  assert.equal((await remote.cli(['server', 'start'])).code, 0);
  await local.cli(['machine', 'add', 'noisy', 'castellan-test-noisy']);
  await local.cli(['machine', 'add', 'evil', 'castellan-test-evil']);
  const noisy = await local.cli(['herd', 'list', '--machine', 'noisy']);
  assert.equal(noisy.code, 0, noisy.stderr);
  assert.match(noisy.stdout, /noisy\s+w1:p1/);

  const list = await local.cli(['herd', 'list', '--machine', 'evil']);
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, /evil\s+w1:p1\s+claude\[2J\s+blocked/);
  assert.doesNotMatch(list.stdout, CONTROL);
  const json = await local.cli(['herd', 'list', '--machine', 'evil', '--json']);
  assert.doesNotMatch(json.stdout, CONTROL, 'JSON escapes them');
  const read = await local.cli(['pane', 'read', '--machine', 'evil', '--pane', 'w1:p1']);
  assert.doesNotMatch(read.stdout, CONTROL);
  const ansi = await local.cli(['pane', 'read', '--machine', 'evil', '--pane', 'w1:p1', '--ansi']);
  assert.ok(ansi.stdout.includes('\u001b[31mR\u001b[0m'), 'colours survive --ansi');
  assert.ok(!ansi.stdout.includes('\u001b]') && !ansi.stdout.includes('\u001b[2J') && !ansi.stdout.includes('\u0007'), JSON.stringify(ansi.stdout));
  const err = await local.cli(['pane', 'send', '--machine', 'evil', '--pane', 'w1:p1', 'x']);
  assert.equal(err.code, 1);
  assert.match(err.stderr, /machine evil: no \[2J such/);
  assert.doesNotMatch(err.stderr, CONTROL);
});
