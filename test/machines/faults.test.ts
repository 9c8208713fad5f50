// Faults on the way to another machine never hang the local side: a killed ssh, a stopped remote server, a restarted
// one. Each ends in bounded time with a clear message and a nonzero exit; the remote server keeps its panes.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { childrenOf, freePort, sshdSkipReason } from '../support/sshd.js';
import { BIN, type TempEnv } from '../support/temp-env.js';
import { waitFor } from '../support/wait-for.js';
import { startMachines } from './fixture.js';

const skip = sshdSkipReason();

interface Running {
  child: ChildProcess;
  done: Promise<{ code: number | null; stdout: string; stderr: string; ms: number }>;
  stderr(): string;
}

/** A CLI call left running (a `herd wait`), so a fault can be made while it is in flight. */
function runCli(env: TempEnv, args: string[]): Running {
  const started = Date.now();
  const child = spawn(process.execPath, [BIN, ...args], { env: env.env, cwd: env.home, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  let stdout = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string; ms: number }>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr, ms: Date.now() - started })));
  env.onCleanup(() => child.kill('SIGKILL'));
  return { child, done, stderr: () => stderr };
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

test('the ssh process killed mid-wait: herd wait connects again and still ends when the remote pane changes; the remote keeps its pane', { skip, timeout: 120_000 }, async (t) => {
  const { local, remote } = await startMachines(t);
  assert.equal((await remote.cli(['server', 'start'])).code, 0);
  await local.cli(['machine', 'add', 'box', 'castellan-test']);
  const w = runCli(local, ['herd', 'wait', '--machine', 'box', '--pane', 'w1:p1', '--status', 'blocked', '--timeout-ms', '90000']);
  await waitersOn(remote, 1);
  const ssh = sshChild(w.child.pid!);
  assert.ok(ssh, 'herd wait runs ssh as its child');
  process.kill(ssh, 'SIGKILL');
  // A fresh ssh, and the wait registered again on the remote server (the old bridge's is gone with its connection).
  await waitFor(() => /connection to machine box lost.*connecting again/.test(w.stderr()), { timeoutMs: 10_000, message: 'the wait to say the link dropped' });
  await waitFor(() => /machine box is back; waiting on/.test(w.stderr()), { timeoutMs: 30_000, message: 'the wait to connect again' });
  await waitFor(async () => (await remote.call<{ subscribers: number }>('ping')).subscribers === 1, { timeoutMs: 10_000, message: 'one wait on the remote server again' });
  assert.equal(w.child.exitCode, null, 'the wait goes on');
  await remote.call('pane.report_agent', { pane_id: 'w1:p1', agent: 'claude', state: 'blocked', source: 'hook', message: 'may I?' });
  const r = await w.done;
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /w1:p1: blocked/);
  assert.equal((await remote.call<{ panes: unknown[] }>('pane.list')).panes.length, 1, 'the remote server and its pane live on');
  await waitFor(async () => (await remote.call<{ subscribers: number }>('ping')).subscribers === 0, { timeoutMs: 10_000, message: 'the bridge to leave the remote server' });
});

test('herd wait --machine while the host stays unreachable: it retries with backoff and ends at its own deadline (124), not before, not much after', { skip, timeout: 120_000 }, async (t) => {
  const { local, remote, sshd } = await startMachines(t);
  assert.equal((await remote.cli(['server', 'start'])).code, 0);
  await local.cli(['machine', 'add', 'box', 'castellan-test']);
  const w = runCli(local, ['herd', 'wait', '--machine', 'box', '--pane', 'w1:p1', '--status', 'blocked', '--timeout-ms', '8000']);
  await waitersOn(remote, 1);
  // The host goes away: box now names a port where nothing listens (each attempt reads the profile anew), and the link dies.
  sshd.addHost('castellan-dead', await freePort());
  assert.equal((await local.cli(['machine', 'remove', 'box'])).code, 0);
  assert.equal((await local.cli(['machine', 'add', 'box', 'castellan-dead'])).code, 0);
  const ssh = sshChild(w.child.pid!);
  if (ssh) process.kill(ssh, 'SIGKILL');
  const r = await w.done;
  assert.equal(r.code, 124, r.stderr);
  assert.match(r.stderr, /connecting again/);
  assert.ok(r.ms >= 7500, `ended ${r.ms} ms after it began, before its 8 s deadline`);
  assert.ok(r.ms < 8000 + 15_000, `ended ${r.ms} ms after it began (deadline 8 s; upper bound on 2 shared cores)`);
});

test('a stalled remote server (SIGSTOP): a quiet wait notices by its probe and goes on, new calls time out, --all-machines still lists the rest', { skip, timeout: 180_000 }, async (t) => {
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
  // The probe notices the stalled server and drops the link; the wait goes on, connecting again.
  await waitFor(() => /stopped answering\); connecting again/.test(w.stderr()), { timeoutMs: 15_000, message: 'the probe to notice the stop' });
  assert.ok(Date.now() - stopped < 15_000, `noticed ${Date.now() - stopped} ms after the stop (probe every 1 s, upper bound on 2 shared cores)`);
  assert.equal(w.child.exitCode, null, 'the wait goes on');

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
  // The wait that went on through the stall is answered by the same server, now awake.
  await waitFor(() => /machine box is back; waiting on/.test(w.stderr()), { timeoutMs: 30_000, message: 'the wait to connect again' });
  await remote.call('pane.report_agent', { pane_id: 'w1:p1', agent: 'claude', state: 'blocked', source: 'hook', message: 'may I?' });
  const r = await w.done;
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /w1:p1: blocked/);
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
  // No server there any more: the wait's panes are gone with it (exit 3, the message says to start one).
  assert.equal(r.code, 3, r.stderr);
  assert.match(r.stderr, /no castellan server runs on machine box/);
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
