// `castellan attach --machine NAME`: a full client on another host's server over the ssh bridge, in a real pty.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { childrenOf, sshdSkipReason } from '../support/sshd.js';
import { startAttached, TermHarness } from '../support/term-harness.js';
import { waitFor } from '../support/wait-for.js';
import { startMachines } from './fixture.js';

const skip = sshdSkipReason();

/** The client's ssh child (the one running the bridge). */
function sshChild(pid: number): number | undefined {
  return childrenOf(pid).find((c) => {
    try {
      return readFileSync(`/proc/${c}/cmdline`, 'utf8').split('\0')[0].endsWith('ssh');
    } catch {
      return false;
    }
  });
}

test('attach --machine draws the remote session, types into it, and reconnects when the link dies, with the output written meanwhile whole', { skip, timeout: 180_000 }, async (t) => {
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

  const ssh = sshChild(h.proc.pid);
  assert.ok(ssh, 'the client runs ssh as its child');
  process.kill(ssh, 'SIGKILL');
  await h.waitForText(/machine box: .*(reconnecting|retrying)/, { timeoutMs: 10_000 });
  assert.equal(h.exit, undefined, 'the client stays');
  // While the link is down: keys go nowhere, and the remote pane writes output nobody here sees yet.
  h.write('zzz-not-sent');
  await remote.call('pane.send_text', { pane_id: 'w1:p1', text: 'for i in 1 2 3 4 5 6; do echo mid-$((i*11)); done', enter: true });
  await waitFor(async () => sshChild(h.proc.pid) !== undefined && sshChild(h.proc.pid) !== ssh, { timeoutMs: 30_000, message: 'a fresh ssh' });
  await h.waitForText(/^│?mid-66/m, { timeoutMs: 30_000 });
  for (const n of [11, 22, 33, 44, 55, 66]) await h.waitForText(new RegExp(`^│?mid-${n}\\b`, 'm'), { timeoutMs: 5000 });
  const remoteText = (await remote.call<{ text: string }>('pane.read', { pane_id: 'w1:p1' })).text;
  assert.doesNotMatch(remoteText, /zzz/, 'keys typed while the link was down reached no remote pane');
  h.write('echo back-$((6*7))\r');
  await h.waitForText(/^│?back-42/m, { timeoutMs: 15_000 });
  await waitFor(async () => (await remote.call<{ clients: number }>('ping')).clients === 1, { timeoutMs: 10_000, message: 'one client there again' });
  h.kill();
  await waitFor(async () => (await remote.call<{ clients: number }>('ping')).clients === 0, { timeoutMs: 10_000, message: 'the remote server to see the client leave' });
  assert.equal((await remote.call<{ panes: unknown[] }>('pane.list')).panes.length, 1, 'the remote pane lives on');
});

test('a -t SESSION@MACHINE (tmux\'s target, the machine after @) attaches there; q while the link is down and the host unreachable leaves with [lost server]', { skip, timeout: 120_000 }, async (t) => {
  const { local, remote, sshd } = await startMachines(t);
  assert.equal((await remote.cli(['--session', 'work', 'server', 'start'])).code, 0);
  await local.cli(['machine', 'add', 'box', 'castellan-test']);
  remote.onCleanup(() => remote.cli(['--session', 'work', 'server', 'stop']));
  assert.equal((await remote.cli(['--session', 'work', 'pane', 'send', '--pane', 'w1:p1', '--enter', 'PS1="work$ "'])).code, 0);
  const h = await startAttached(local, { args: ['a', '-t', 'work@box'], timeoutMs: 30_000, prompt: false });
  local.onCleanup(() => h.kill());
  await h.waitForText(/work\$ /, { timeoutMs: 15_000 });
  // The bar names the session with its machine: this terminal is on box, not here.
  await h.waitForText(/^ work@box /m, { timeoutMs: 5000 });
  await sshd.stop();
  const ssh = sshChild(h.proc.pid);
  if (ssh) process.kill(ssh, 'SIGKILL');
  await h.waitForText(/machine box: .*retrying in \d/, { timeoutMs: 30_000 });
  h.write('q');
  const exit = await h.waitForExit(10_000);
  assert.equal(exit.exitCode, 1);
  assert.match(h.output, /\[lost server\]/);
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
