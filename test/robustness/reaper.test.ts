// Hostile cases for the crash reaper (bin/castellan-reaper.sh): garbage on its pipe, pids that must never be signalled, the reaper itself killed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { reaperArgs } from '../../src/platform/proc/index.js';
import { REAPER_SCRIPT } from '../../src/server/reaper.js';
import { pidAlive, tempEnvFor } from '../support/temp-env.js';
import { waitFor } from '../support/wait-for.js';

const STUBBORN = ['sh', '-c', 'trap "" HUP TERM; while :; do sleep 1; done'];

/** Runs the reaper script on `input` (stdin closed after it); resolves with its exit code, stdout and run time. */
function runScript(input: string | Buffer, args: string[] = []): Promise<{ code: number | null; out: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const t0 = Date.now();
    const c = spawn('/bin/sh', [REAPER_SCRIPT, ...reaperArgs(), ...args], { stdio: ['pipe', 'pipe', 'ignore'] });
    let out = '';
    c.stdout.on('data', (d) => (out += d));
    c.on('error', reject);
    c.on('exit', (code) => resolve({ code, out, ms: Date.now() - t0 }));
    c.stdin.end(input);
  });
}

/** A session leader started like a pane program (its own session), ignoring HUP and TERM. */
function stubbornSession(): number {
  const c = spawn(STUBBORN[0], STUBBORN.slice(1), { detached: true, stdio: 'ignore' });
  c.unref();
  return c.pid!;
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
  } catch {
    return '';
  }
}

/** The server's reaper: its child running the reaper script. */
function reaperOf(server: number): number | undefined {
  for (const n of readdirSync('/proc')) {
    if (!/^\d+$/.test(n)) continue;
    try {
      const stat = readFileSync(`/proc/${n}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === server && cmdline(Number(n)).includes('castellan-reaper.sh')) return Number(n);
    } catch {
      /* gone */
    }
  }
  return undefined;
}

test('reaper: only well-formed pids above 1 are kept; garbage, 0, 1, negatives, zero-padded and huge numbers are not', async () => {
  // The shell's `read` drops NUL bytes, so a NUL never hides a 0, a 1 or a sign from the checks.
  const lines = [
    '+0', '+1', '-1', '+-5', '+-1', '-0', '+00', '+01', '+ 5', '+5 ', '5', '++5', '+5x', '+99999999999', '+1e3', '+0x10',
    '', '+', '-', '\x00+1', '+\x000', '-\x00-5', '+\u0663', '+$(echo 9)', '+`id`', '+*', '+1234', '+42', '-42', '+77', '+77',
  ];
  const huge = '+' + '9'.repeat(1 << 20);
  const r = await runScript([...lines, huge, '+4242'].join('\n') + '\n', ['--list']);
  assert.equal(r.code, 0);
  assert.deepEqual(r.out.trim().split(/\s+/).filter(Boolean), ['1234', '77', '4242']);
});

test('reaper: a session token is kept only for a known leader, only as decimal or 0x and hex, 18 characters at most', async () => {
  const lines = [
    '+1234', '=1234 0xffffff8012345678', '=999 0xab', '=1234 1234', '=1234 0x', '=1234 0xZZ', '=1234 0X1f', '=1234 -5', '=1234 07',
    '=1234 0x1; kill -9 -1', '=1234 $(id)', '=1234  0xab', '=1234 0x00000000000000001', '=1234\t0xab', '=0 0xab', '=1 0xab', '=1234',
    '+77', '=77 4242', '=77 4242', '+55', '=55 0xab', '-55',
  ];
  const r = await runScript(lines.join('\n') + '\n', ['--list']);
  assert.equal(r.code, 0);
  const [leaders, tokens] = r.out.trim().split('\n');
  assert.deepEqual(leaders.trim().split(/\s+/), ['1234', '77']);
  // 55's token went with it; 999 was never a leader; every malformed or hostile token was dropped; a repeat is kept once.
  assert.deepEqual(tokens.replace(/^tokens:/, '').trim().split(/\s+/), ['1234=0xffffff8012345678', '77=4242']);
});

test('reaper: binary garbage and no trailing newline end it at once, signalling nothing', async () => {
  const bytes = Buffer.alloc(64 * 1024);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7919) % 256;
  const r = await runScript(bytes, ['--list']);
  assert.equal(r.code, 0);
  assert.equal(r.out.trim(), '');
  // Nothing valid: it exits at end of file without a step (a step sleeps at least 100 ms per signal).
  const plain = await runScript(bytes);
  assert.equal(plain.code, 0);
});

test('reaper: at end of file it ends a session that ignores HUP and TERM, and exits', async (t) => {
  const leader = stubbornSession();
  t.after(() => {
    try {
      process.kill(-leader, 'SIGKILL');
    } catch {
      /* gone, as it should be */
    }
  });
  await waitFor(() => cmdline(leader).includes('trap'), { timeoutMs: 5000, message: 'the stubborn session runs' });
  const r = await runScript(`+0\n+1\n+${leader}\n`);
  assert.equal(r.code, 0, `reaper exit code (1: something in the session outlived SIGKILL): ${JSON.stringify(r)}`);
  await waitFor(() => !pidAlive(leader), { timeoutMs: 3000, message: 'the stubborn session ends' });
  t.diagnostic(`reaper ended a HUP/TERM-ignoring session and exited in ${r.ms} ms`);
});

test('reaper: a leader reported ended ("-PID") is left alone', async (t) => {
  const leader = stubbornSession();
  t.after(() => {
    try {
      process.kill(-leader, 'SIGKILL');
    } catch {
      /* gone */
    }
  });
  await waitFor(() => cmdline(leader).includes('trap'), { timeoutMs: 5000, message: 'the stubborn session runs' });
  const r = await runScript(`+${leader}\n-${leader}\n`);
  assert.equal(r.code, 0);
  assert.ok(pidAlive(leader), 'the session whose leader was reported ended still runs');
});

test('reaper killed by hand: the server starts another, which still ends the panes when the server is killed -9', async (t) => {
  const env = tempEnvFor(t);
  const r = await env.cli(['server', 'start', '--', ...STUBBORN]);
  assert.equal(r.code, 0, `${r.stdout}${r.stderr}${env.logTail()}`);
  const server = (await env.serverPid())!;
  const first = await waitFor(() => reaperOf(server), { timeoutMs: 5000, message: 'the server\'s reaper' });
  // It is a shell, not a second Node: a few MB at most.
  const rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${first}/status`, 'utf8'))?.[1]);
  assert.ok(rss < 8 * 1024, `reaper RSS ${rss} KiB`);
  t.diagnostic(`reaper RSS ${rss} KiB`);
  const pane = await waitFor(async () => (await env.call<{ panes: Array<{ pid?: number }> }>('pane.list', {})).panes[0]?.pid, { timeoutMs: 5000, message: 'the pane pid' });
  process.kill(first, 'SIGKILL');
  const second = await waitFor(() => {
    const p = reaperOf(server);
    return p && p !== first ? p : undefined;
  }, { timeoutMs: 5000, message: 'a new reaper', observe: () => env.logTail() });
  assert.ok(pidAlive(pane), 'the pane survived its reaper');
  // The new reaper is told about the pane that was already running right after it starts; the server logs its pid
  // once it has been told. A kill before that is a crash inside the restart (the test saw the new reaper while the
  // server was still between starting it and telling it: the pane survived, in 3 of 13 loaded portable runs).
  await waitFor(() => env.logTail(50).includes(`reaper: pid ${second}`), { timeoutMs: 5000, message: 'the server has told the new reaper', observe: () => env.logTail() });
  process.kill(server, 'SIGKILL');
  // HUP, TERM and KILL take the reaper under 2 s on a quiet machine; a full suite's load stretched it past 3 s once.
  await waitFor(() => !pidAlive(pane), { timeoutMs: 10_000, message: 'the pane ends after the server is killed', observe: () => `${cmdline(pane)}\n${env.logTail()}` });
  await waitFor(() => !pidAlive(second), { timeoutMs: 10_000, message: 'the second reaper exits' });
});
