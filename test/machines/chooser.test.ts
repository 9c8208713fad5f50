// The tree chooser in a local attached client lists other machines (issue 31), against a real sshd: a remote agent's
// badge and "needs me" shown, a machine that is down shown stale from its last listing, keys never waiting on either.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sshdSkipReason } from '../support/sshd.js';
import { startAttached } from '../support/term-harness.js';
import { startMachines } from './fixture.js';

const skip = sshdSkipReason();

test('prefix s lists a remote machine with its blocked agent, and a down one stale with what it last showed; Enter names the command', { skip, timeout: 180_000 }, async (t) => {
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
  h.write('\r');
  await h.waitForText(/is on machine (box|gone): detach \(prefix d\) and run {2}castellan attach --machine (box|gone)/, { timeoutMs: 10_000 });
});
