// Issue 31's faults on the link, seen from the keyboard: the ssh processes to a machine killed, the remote server
// stopped (SIGSTOP). The measurement and its bound: echo-faults.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { allSsh, echoDuring, skip } from './echo-faults.js';

test('echo stays fast while the ssh processes to a machine are killed', { skip, timeout: 240_000 }, async (t) => {
  await echoDuring(t, 'ssh killed', async () => {
    // Every ssh this side runs to box (the waiting script's, the client's own if its look is still on the way), killed.
    const killed = await allSsh();
    for (const s of killed) process.kill(s, 'SIGKILL');
  });
});

test('echo stays fast while the remote server is stopped (SIGSTOP)', { skip, timeout: 240_000 }, async (t) => {
  let stopped: number | undefined;
  t.after(() => stopped && process.kill(stopped, 'SIGCONT'));
  await echoDuring(t, 'remote SIGSTOP', async (m) => {
    // A measurement taken again finds the server still stopped (it cannot say its pid then): the same one, stopped again.
    stopped ??= await m.remote.serverPid();
    assert.ok(stopped, 'the remote server has a pid');
    process.kill(stopped, 'SIGSTOP');
  });
});
