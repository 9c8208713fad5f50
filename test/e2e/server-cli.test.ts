// E2E: `castellan server start/status/stop` and their exit codes (0 ok, 3 no server), with no client attached.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { pidAlive, tempEnvFor } from '../support/temp-env.js';
import { listPanes } from '../support/term-harness.js';
import { waitFor } from '../support/wait-for.js';

const gone = (pid: number) => !pidAlive(pid);

test('server start, status, stop: exit codes and what they say', async (t) => {
  const env = tempEnvFor(t);
  const none = await env.cli(['server', 'status']);
  assert.equal(none.code, 3, `status with no server exits 3: ${none.stdout}${none.stderr}`);
  assert.match(none.stdout, /no server running/);
  const noneJson = await env.cli(['server', 'status', '--json']);
  assert.equal(noneJson.code, 3);
  const noServer = JSON.parse(noneJson.stdout) as { running: boolean; socket: string; platform?: { platform: string; backend: string } };
  assert.deepEqual({ running: noServer.running, socket: noServer.socket }, { running: false, socket: env.socket });
  assert.equal(noServer.platform?.platform, process.platform, 'status names the platform and its process backend (issue 33)');
  const stopNone = await env.cli(['server', 'stop']);
  assert.equal(stopNone.code, 3, `stop with no server exits 3: ${stopNone.stdout}${stopNone.stderr}`);

  const start = await env.cli(['server', 'start', '--cols', '100', '--rows', '30']);
  assert.equal(start.code, 0, `start: ${start.stdout}${start.stderr}\n${env.logTail()}`);
  assert.match(start.stdout, /server started/);
  const again = await env.cli(['server', 'start']);
  assert.equal(again.code, 0, 'a second start is not an error');
  assert.match(again.stdout, /already running/);

  const status = await env.cli(['server', 'status', '--json']);
  assert.equal(status.code, 0);
  const s = JSON.parse(status.stdout);
  assert.equal(s.running, true);
  assert.equal(s.panes, 1);
  assert.equal(s.windows, 1);
  const pid = await env.serverPid();
  assert.equal(s.pid, pid);
  const panes = await listPanes(env);
  assert.deepEqual([panes[0].cols, panes[0].rows], [98, 27], '--cols/--rows size the window (one bar row, a border)');
  const shellPid = panes[0].pid!;
  assert.ok(shellPid);

  const stop = await env.cli(['server', 'stop']);
  assert.equal(stop.code, 0, `stop: ${stop.stdout}${stop.stderr}`);
  assert.match(stop.stdout, /server stopped/);
  assert.equal(existsSync(env.socket), false, 'the socket file is removed');
  await waitFor(() => gone(pid!), { timeoutMs: 3000, message: `server pid ${pid} exits` });
  await waitFor(() => gone(shellPid), { timeoutMs: 3000, message: `pane shell pid ${shellPid} exits` });
  const after = await env.cli(['server', 'status']);
  assert.equal(after.code, 3, 'status after stop exits 3');
});

test('server start rejects a bad size with exit 2 and starts nothing', async (t) => {
  const env = tempEnvFor(t);
  const bad = await env.cli(['server', 'start', '--cols', '5']);
  assert.equal(bad.code, 2, `${bad.stdout}${bad.stderr}`);
  assert.match(bad.stderr, /--cols must be/);
  assert.equal((await env.cli(['server', 'status'])).code, 3);
});

test('a stale socket file from a dead server does not stop a new one from starting', async (t) => {
  const env = tempEnvFor(t);
  assert.equal((await env.cli(['server', 'start'])).code, 0);
  const pid = (await env.serverPid())!;
  process.kill(pid, 'SIGKILL');
  await waitFor(() => gone(pid), { message: 'the killed server is gone' });
  assert.equal(existsSync(env.socket), true, 'a SIGKILLed server leaves its socket file behind');
  const status = await env.cli(['server', 'status']);
  assert.equal(status.code, 3, `a dead socket is "not running": ${status.stdout}${status.stderr}`);
  const start = await env.cli(['server', 'start']);
  assert.equal(start.code, 0, `start over a stale socket: ${start.stdout}${start.stderr}\n${env.logTail()}`);
  assert.equal((await env.cli(['server', 'status'])).code, 0);
  assert.notEqual(await env.serverPid(), pid);
});
