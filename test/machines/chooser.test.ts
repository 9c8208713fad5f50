// The tree chooser in a local attached client lists other machines (issue 31), against a real sshd: a remote agent's
// badge and "needs me" shown, a machine that is down shown stale from its last listing, keys never waiting on either.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sshdSkipReason } from '../support/sshd.js';
import { startAttached } from '../support/term-harness.js';
import { waitFor } from '../support/wait-for.js';
import { startMachines } from './fixture.js';

const skip = sshdSkipReason();

test('prefix s lists a remote machine with its blocked agent, and a down one stale with what it last showed', { skip, timeout: 180_000 }, async (t) => {
  const { local, remote } = await startMachines(t);
  assert.equal((await remote.cli(['server', 'start'])).code, 0);
  await local.cli(['machine', 'add', 'box', 'castellan-test']);
  await remote.call('pane.report_agent', { pane_id: 'w1:p1', agent: 'claude', state: 'blocked', source: 'hook', message: 'may I run rm?' });
  // A machine `gone` whose listing is cached (herd list remembers it) but whose host no longer answers.
  await local.cli(['machine', 'add', 'gone', 'castellan-test']);
  await local.cli(['herd', 'list', '--all-machines']);
  await local.cli(['machine', 'remove', 'gone']);
  await local.cli(['machine', 'add', 'gone', 'castellan-test-bare']);
  const h = await startAttached(local, { timeoutMs: 30_000 });
  local.onCleanup(() => h.kill());
  h.prefix('s');
  await h.waitForText(/default@box +\(1 window\) +1 needs you/, { timeoutMs: 30_000 });
  await h.waitForText(/default@gone +\(1 window\) +1 needs you +\[stale: last seen \d+ s ag/, { timeoutMs: 30_000 });
  // The highlighted machine's whole reason is in the preview's title.
  h.write('jj');
  await h.waitForText(/default@gone: on another machine \(stale: last seen \d+ s ago · castellan is not installed/, { timeoutMs: 30_000 });
  // Unfold box and find its agent with the badge.
  h.write('/claude');
  await h.waitForText(/w1:p1 .*claude .*blocked/, { timeoutMs: 10_000 });
});

test('Enter on another machine\'s row moves this client there (keys reach its pane); prefix d comes back; prefix j jumps to a remote agent that waits', { skip, timeout: 240_000 }, async (t) => {
  const { local, remote } = await startMachines(t);
  assert.equal((await remote.cli(['server', 'start'])).code, 0);
  await local.cli(['machine', 'add', 'box', 'castellan-test']);
  // Each shell's prompt names its side, so the screen proves which server drew it.
  await remote.call('pane.send_text', { pane_id: 'w1:p1', text: 'PS1="remote$ "', enter: true });
  const h = await startAttached(local, { timeoutMs: 30_000 });
  local.onCleanup(() => h.kill());
  await local.call('pane.send_text', { pane_id: 'w1:p1', text: 'PS1="local$ "; clear', enter: true });
  await h.waitForText(/local\$ /, { timeoutMs: 15_000 });

  h.prefix('s');
  await h.waitForText(/default@box +\(1 window\)(?! +\[stale)/, { timeoutMs: 30_000 });
  h.write('j');
  await h.waitForText(/default@box: on another machine, Enter moves this client there/, { timeoutMs: 10_000 });
  h.write('\r');
  await h.waitForText(/on machine box; prefix d comes back to session default here/, { timeoutMs: 30_000 });
  // The bar names the session with its machine.
  await h.waitForText(/^ default@box /m, { timeoutMs: 5000 });
  await h.waitForText(/remote\$ /, { timeoutMs: 15_000 });
  assert.equal((await remote.call<{ clients: number }>('ping')).clients, 1, 'the remote server has this client');
  await waitFor(async () => (await local.call<{ clients: number }>('ping')).clients === 0, { timeoutMs: 10_000, message: 'the local server to see the client leave' });
  h.write('echo hi-$((6*7))\r');
  await h.waitForText(/^│?hi-42/m, { timeoutMs: 15_000 });
  assert.match((await remote.call<{ text: string }>('pane.read', { pane_id: 'w1:p1' })).text, /hi-42/, 'the keys reached the remote pane');
  // From there, the chooser names the session it is on default@box (once, attached) and this machine's default apart.
  h.prefix('s');
  await h.waitForText(/default@box \(attached\)/, { timeoutMs: 15_000 });
  await h.waitForText(/^│?.{0,4}default +\(1 window\)/m, { timeoutMs: 15_000, message: 'the local session default listed as another one' });
  await waitFor(async () => !/\[stale|connecting/.test((await h.screenText()).join('\n')), { timeoutMs: 30_000, message: 'the look at box to finish' });
  const tree = (await h.screenText()).join('\n');
  assert.equal((tree.match(/default@box.*\(1 window\)/g) ?? []).length, 1, `default@box listed once:\n${tree}`);
  h.write('q');
  await h.waitForNoText(/default@box \(attached\)/, { timeoutMs: 10_000 });

  h.prefix('d');
  await h.waitForText(/back from machine box \[detached \(from session default\)\]/, { timeoutMs: 30_000 });
  await h.waitForText(/local\$ /, { timeoutMs: 15_000 });
  assert.equal(h.exit, undefined, 'the client stays, here');
  await waitFor(async () => (await local.call<{ clients: number }>('ping')).clients === 1, { timeoutMs: 10_000, message: 'the local server to have the client back' });
  await waitFor(async () => (await remote.call<{ clients: number }>('ping')).clients === 0, { timeoutMs: 10_000, message: 'the remote server to see the client leave' });

  // A remote agent turns blocked while the chooser is open: its row says so without reopening (the chooser follows
  // box's events); that look is also what prefix j knows of other machines.
  h.prefix('s');
  await h.waitForText(/default@box +\(1 window\)(?! +\[stale)/, { timeoutMs: 30_000 });
  await waitFor(async () => (await remote.call<{ subscribers: number }>('ping')).subscribers >= 1, { timeoutMs: 30_000, message: 'the chooser to follow box' });
  assert.doesNotMatch((await h.screenText()).join('\n'), /needs you/);
  await remote.call('pane.report_agent', { pane_id: 'w1:p1', agent: 'claude', state: 'blocked', source: 'hook', message: 'may I run rm?' });
  await h.waitForText(/default@box +\(1 window\) +1 needs you(?! +\[stale)/, { timeoutMs: 10_000, message: 'the open chooser to show the remote agent blocked' });
  h.write('q');
  await h.waitForNoText(/default@box/, { timeoutMs: 10_000 });
  h.prefix('j');
  await h.waitForText(/on machine box/, { timeoutMs: 30_000 });
  await h.waitForText(/remote\$ /, { timeoutMs: 15_000 });
  assert.equal((await remote.call<{ clients: number }>('ping')).clients, 1, 'prefix j moved this client to the remote agent');
});
