// Faults on the way to another machine never hang the local side: a killed ssh, a stopped remote server, a restarted
// one. Each ends in bounded time with a clear message and a nonzero exit; the remote server keeps its panes.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { childrenOf, sshdSkipReason } from '../support/sshd.js';
import { BIN, type TempEnv } from '../support/temp-env.js';
import { waitFor } from '../support/wait-for.js';
import { startMachines } from './fixture.js';

const skip = sshdSkipReason();

interface Running {
  child: ChildProcess;
  done: Promise<{ code: number | null; stderr: string; ms: number }>;
}

/** A CLI call left running (a `herd wait`), so a fault can be made while it is in flight. */
function runCli(env: TempEnv, args: string[]): Running {
  const started = Date.now();
  const child = spawn(process.execPath, [BIN, ...args], { env: env.env, cwd: env.home, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdout!.resume();
  const done = new Promise<{ code: number | null; stderr: string; ms: number }>((resolve) => child.on('close', (code) => resolve({ code, stderr, ms: Date.now() - started })));
  env.onCleanup(() => child.kill('SIGKILL'));
  return { child, done };
}

const sshChild = (pid: number) => childrenOf(pid).find((c) => {
  try {
    return readFileSync(`/proc/${c}/cmdline`, 'utf8').split('\0')[0].endsWith('ssh');
  } catch {
    return false;
  }
});

async function waitersOn(remote: TempEnv, n: number): Promise<void> {
  await waitFor(async () => (await remote.call<{ subscribers: number }>('ping')).subscribers >= n, { timeoutMs: 30_000, message: 'the remote wait to be registered' });
}

test('the ssh process killed mid-call: the wait ends at once with "connection lost", the remote keeps its pane', { skip, timeout: 120_000 }, async (t) => {
  const { local, remote } = await startMachines(t);
  assert.equal((await remote.cli(['server', 'start'])).code, 0);
  await local.cli(['machine', 'add', 'box', 'castellan-test']);
  const w = runCli(local, ['herd', 'wait', '--machine', 'box', '--pane', 'w1:p1', '--status', 'blocked', '--timeout-ms', '60000']);
  await waitersOn(remote, 1);
  const ssh = sshChild(w.child.pid!);
  assert.ok(ssh, 'herd wait runs ssh as its child');
  const killed = Date.now();
  process.kill(ssh, 'SIGKILL');
  const r = await w.done;
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /castellan herd wait: connection to machine box lost/);
  assert.ok(Date.now() - killed < 5000, `ended ${Date.now() - killed} ms after the kill`);
  assert.equal((await remote.call<{ panes: unknown[] }>('pane.list')).panes.length, 1, 'the remote server and its pane live on');
  await waitFor(async () => (await remote.call<{ subscribers: number }>('ping')).subscribers === 0, { timeoutMs: 10_000, message: 'the bridge to leave the remote server' });
});

test('a stalled remote server (SIGSTOP): a quiet wait notices by its probe, new calls time out, --all-machines still lists the rest', { skip, timeout: 180_000 }, async (t) => {
  const { local, remote } = await startMachines(t, { localEnv: { CASTELLAN_MACHINE_PROBE_MS: '1000', CASTELLAN_MACHINE_TIMEOUT_MS: '15000' } });
  assert.equal((await remote.cli(['server', 'start'])).code, 0);
  assert.equal((await local.cli(['server', 'start'])).code, 0);
  await local.cli(['machine', 'add', 'box', 'castellan-test']);
  const pid = (await remote.serverPid())!;
  const w = runCli(local, ['herd', 'wait', '--machine', 'box', '--pane', 'w1:p1', '--status', 'blocked', '--timeout-ms', '120000']);
  await waitersOn(remote, 1);
  process.kill(pid, 'SIGSTOP');
  t.after(() => {
    try {
      process.kill(pid, 'SIGCONT');
    } catch {
      /* gone */
    }
  });
  const stopped = Date.now();
  const r = await w.done;
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /connection to machine box lost \(the castellan server on machine box stopped answering\)/);
  assert.ok(Date.now() - stopped < 15_000, `noticed ${Date.now() - stopped} ms after the stop (probe every 1 s, upper bound on 2 shared cores)`);

  const list = await local.cli(['herd', 'list', '--machine', 'box'], { timeoutMs: 30_000 });
  assert.notEqual(list.code, 0);
  assert.match(list.stderr, /machine box/);
  const all = await local.cli(['herd', 'list', '--all-machines'], { timeoutMs: 30_000 });
  assert.equal(all.code, 1);
  assert.match(all.stdout, /\nlocal\s+w1:p1\s/);
  assert.match(all.stdout, /\nbox\s+-\s+-\s+unreachable\s.*(does not answer|did not answer|stalled)/);

  process.kill(pid, 'SIGCONT');
  const back = await local.cli(['herd', 'list', '--machine', 'box'], { timeoutMs: 30_000 });
  assert.equal(back.code, 0, back.stderr);
  assert.match(back.stdout, /box\s+w1:p1/);
});

test('the remote server restarted: an in-flight wait says so; the next call reaches the new server', { skip, timeout: 120_000 }, async (t) => {
  const { local, remote } = await startMachines(t);
  assert.equal((await remote.cli(['server', 'start'])).code, 0);
  await local.cli(['machine', 'add', 'box', 'castellan-test']);
  assert.equal((await local.cli(['herd', 'list', '--machine', 'box'])).code, 0);
  const w = runCli(local, ['herd', 'wait', '--machine', 'box', '--pane', 'w1:p1', '--status', 'blocked', '--timeout-ms', '60000']);
  await waitersOn(remote, 1);
  assert.equal((await remote.cli(['server', 'stop'])).code, 0);
  const r = await w.done;
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /machine box/);
  // While it is away, --all-machines shows what box last said, marked stale, under the row saying why.
  const away = await local.cli(['herd', 'list', '--all-machines']);
  assert.equal(away.code, 1);
  assert.match(away.stdout, /\nbox\s+-\s+-\s+no server\s.*\nbox\s+w1:p1\s+-\s+stale:idle\s+\S+\s+\d+s ago\s/);
  const awayJson = JSON.parse((await local.cli(['herd', 'list', '--all-machines', '--json'])).stdout) as Array<{ machine: string; stale?: boolean; pane_id?: string }>;
  assert.ok(awayJson.some((p) => p.machine === 'box' && p.stale === true && p.pane_id === 'w1:p1'));
  assert.equal((await remote.cli(['server', 'start'])).code, 0);
  const back = await local.cli(['herd', 'list', '--machine', 'box']);
  assert.equal(back.code, 0, back.stderr);
  assert.match(back.stdout, /box\s+w1:p1/);
});
