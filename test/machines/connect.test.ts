// connectMachine against fake ssh programs: every way the other end can misbehave ends bounded, with a clear error,
// and leaves no ssh child behind.
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { connectMachine, MachineError } from '../../src/machines/index.js';

function fakeSsh(t: { after(fn: () => unknown): void }, body: string): { ssh: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'cst-fssh-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const ssh = join(dir, 'ssh');
  writeFileSync(ssh, `#!/bin/sh\n${body}\n`);
  chmodSync(ssh, 0o755);
  return { ssh, dir };
}

const box = { name: 'box', target: 'user@box' };
const HELLO = (o: { protocol?: number; server?: string; version?: string } = {}) =>
  JSON.stringify({ castellan_bridge: { protocol: o.protocol ?? 1, version: o.version ?? '0.1.0', capabilities: ['rpc'] }, server: { state: o.server ?? 'running', protocol: 1, version: o.version ?? '0.1.0' } });

async function fails(p: Promise<unknown>, code: string, message: RegExp): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof MachineError, String(e));
    assert.equal(e.code, code, e.message);
    assert.match(e.message, message);
    return true;
  });
}

const gone = (pid: number) => {
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
};

test('the argv ssh gets: options first, then --, the target, and the bridge command', async (t) => {
  const { ssh, dir } = fakeSsh(t, `printf '%s\\n' "$@" > "$(dirname "$0")/argv"; echo '${HELLO()}'; cat >/dev/null`);
  const c = await connectMachine({ ...box, session: 'work' }, { ssh, probeMs: 0 });
  c.client.close();
  const argv = readFileSync(join(dir, 'argv'), 'utf8').trim().split('\n');
  assert.deepEqual(argv.slice(argv.indexOf('--')), ['--', 'user@box', 'castellan', 'machine', 'bridge', '--session', 'work']);
});

test('no ssh program, a refused host, a flood without hello, a silent host, an incompatible one: each bounded and clear', async (t) => {
  await fails(connectMachine(box, { ssh: '/nonexistent/ssh' }), 'no_ssh', /ssh is not installed here/);
  await fails(connectMachine(box, { ssh: fakeSsh(t, `echo 'ssh: connect to host box port 22: Connection refused' >&2; exit 255`).ssh }), 'machine_unreachable', /unreachable: ssh: connect to host box port 22: Connection refused/);
  await fails(connectMachine(box, { ssh: fakeSsh(t, `echo 'sh: 1: castellan: not found' >&2; exit 127`).ssh }), 'machine_not_installed', /not installed on user@box.*npm install -g castellan/);
  const flood = fakeSsh(t, `head -c 200000 /dev/zero | tr '\\0' x; exec sleep 30`).ssh;
  const t0 = Date.now();
  await fails(connectMachine(box, { ssh: flood, deadlineMs: 20_000 }), 'machine_incompatible', /without a castellan bridge hello/);
  assert.ok(Date.now() - t0 < 10_000, 'the flood is cut at its limit, not at the deadline');
  const silent = fakeSsh(t, `echo $$ > "$(dirname "$0")/pid"; exec sleep 30`);
  await fails(connectMachine(box, { ssh: silent.ssh, deadlineMs: 600 }), 'machine_unreachable', /did not answer within 600 ms/);
  const pid = Number(readFileSync(join(silent.dir, 'pid'), 'utf8'));
  const deadline = Date.now() + 5000;
  while (!gone(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  assert.ok(gone(pid), 'the ssh child is killed at the deadline');
  await fails(connectMachine(box, { ssh: fakeSsh(t, `echo '${HELLO({ protocol: 2 })}'; cat >/dev/null`).ssh }), 'machine_incompatible', /bridge speaks protocol 2/);
  await fails(connectMachine(box, { ssh: fakeSsh(t, `echo '${HELLO({ server: 'not_running' })}'`).ssh }), 'not_running', /no castellan server runs on machine box/);
  await fails(connectMachine({ ...box, disabled: true }, { ssh: '/nonexistent/ssh' }), 'machine_disabled', /disabled/);
});

test('a remote error message and a lost link are relabelled with the machine and cleaned of escape sequences', async (t) => {
  const reply = `{"id":"1","error":{"code":"pane_not_found","message":"no pane \\\\u001b]0;x\\\\u0007 here"}}`;
  const { ssh } = fakeSsh(t, `echo '${HELLO()}'; read line; echo '${reply}'; exit 0`);
  const c = await connectMachine(box, { ssh, probeMs: 0 });
  await assert.rejects(c.client.request('pane.read', { pane_id: 'w1:p1' }, { timeoutMs: 5000 }), (e: Error & { code?: string }) => {
    assert.equal(e.code, 'pane_not_found');
    assert.equal(e.message, 'machine box: no pane ]0;x here');
    return true;
  });
  await assert.rejects(c.client.request('ping', {}, { timeoutMs: 5000 }), /connection to machine box lost/);
});
