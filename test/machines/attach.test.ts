// `castellan attach --machine NAME`: a full client on another host's server over the ssh bridge, in a real pty.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { childrenOf, sshdSkipReason } from '../support/sshd.js';
import { startAttached, TermHarness } from '../support/term-harness.js';
import { waitFor } from '../support/wait-for.js';
import { startMachines } from './fixture.js';

const skip = sshdSkipReason();

test('attach --machine draws the remote session, types into it, and leaves cleanly when the link dies', { skip, timeout: 120_000 }, async (t) => {
  const { local, remote } = await startMachines(t);
  assert.equal((await remote.cli(['server', 'start'])).code, 0);
  await local.cli(['machine', 'add', 'box', 'castellan-test']);
  // The remote shell's prompt names its HOME, so the screen proves which server drew it.
  await remote.call('pane.send_text', { pane_id: 'w1:p1', text: 'PS1="remote$ "', enter: true });
  const h = await startAttached(local, { args: ['attach', '--machine', 'box'], timeoutMs: 30_000, prompt: false });
  local.onCleanup(() => h.kill());
  await h.waitForText('remote$ ', { timeoutMs: 15_000 });
  assert.equal((await remote.call<{ clients: number }>('ping')).clients, 1, 'the remote server has the client');
  assert.equal(await local.serverRunning(), false, 'nothing was started here');

  h.write('echo hi-$((6*7))\r');
  await h.waitForText(/^│?hi-42/m, { timeoutMs: 15_000 });

  const ssh = childrenOf(h.proc.pid).find((c) => {
    try {
      return readFileSync(`/proc/${c}/cmdline`, 'utf8').split('\0')[0].endsWith('ssh');
    } catch {
      return false;
    }
  });
  assert.ok(ssh, 'the client runs ssh as its child');
  process.kill(ssh, 'SIGKILL');
  const exit = await h.waitForExit(10_000);
  assert.equal(exit.exitCode, 1);
  assert.match(h.output, /\[lost server\]/);
  await waitFor(async () => (await remote.call<{ clients: number }>('ping')).clients === 0, { timeoutMs: 10_000, message: 'the remote server to see the client leave' });
  assert.equal((await remote.call<{ panes: unknown[] }>('pane.list')).panes.length, 1, 'the remote pane lives on');
});

test('attach --machine when no server runs there is a clear message and exit 3, with the terminal left as it was', { skip, timeout: 60_000 }, async (t) => {
  const { local } = await startMachines(t);
  await local.cli(['machine', 'add', 'box', 'castellan-test']);
  const h = TermHarness.start(local, { args: ['attach', '--machine', 'box'] });
  local.onCleanup(() => h.kill());
  const exit = await h.waitForExit(30_000);
  assert.equal(exit.exitCode, 3);
  assert.match(h.output, /no castellan server runs on machine box: start one there \(ssh castellan-test castellan server start\)/);
  assert.doesNotMatch(h.output, /\u001b\[\?1049h/, 'the client never took the screen');
});
