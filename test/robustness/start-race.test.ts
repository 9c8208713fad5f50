// Hostile starts: concurrent `server start --foreground`, stale sockets, a file or an open directory at the socket path.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ApiClient } from '../../src/api/client.js';
import { BIN, pidAlive, type TempEnv, tempEnvFor } from '../support/temp-env.js';
import { waitFor } from '../support/wait-for.js';

interface Started {
  child: ChildProcess;
  pid: number;
  out: string;
  code: number | null | undefined;
}

/** Starts `castellan server start --foreground` as the user would, collecting its output. */
function startForeground(env: TempEnv, extraEnv: Record<string, string> = {}): Started {
  const child = spawn(process.execPath, [BIN, 'server', 'start', '--foreground'], { env: { ...env.env, ...extraEnv }, cwd: env.home, stdio: ['ignore', 'pipe', 'pipe'] });
  const s: Started = { child, pid: child.pid!, out: '', code: undefined };
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (s.out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (s.out += d));
  child.on('exit', (code, sig) => (s.code = code ?? (sig ? -1 : null)));
  env.onCleanup(() => {
    if (s.code === undefined) child.kill('SIGKILL');
  });
  return s;
}

async function pingPid(socket: string): Promise<number | undefined> {
  try {
    const c = await ApiClient.connect(socket, 1000);
    try {
      return (await c.request<{ pid: number }>('ping', {}, { timeoutMs: 3000 })).pid;
    } finally {
      c.close();
    }
  } catch {
    return undefined;
  }
}

/** A socket file nobody listens on: what a SIGKILLed server leaves behind. */
async function staleSocket(path: string): Promise<void> {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const child = spawn(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(path)}, () => console.log('up')); setInterval(() => {}, 1000)`], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
  child.kill('SIGKILL');
  await waitFor(() => !pidAlive(child.pid!), { message: 'the stale socket owner is gone' });
  assert.equal(lstatSync(path).isSocket(), true);
}

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((r) => child.once('exit', r));
  return child.pid!;
}

/** One round: four servers start at once; exactly one serves, the rest refuse clearly. Returns what went wrong. */
async function race(env: TempEnv, round: number): Promise<string | undefined> {
  const kids = [0, 1, 2, 3].map(() => startForeground(env));
  const settled = await waitFor(() => kids.filter((k) => k.code !== undefined).length >= 3, { timeoutMs: 20_000 }).catch(() => false);
  const running = kids.filter((k) => k.code === undefined);
  const winnerPid = await waitFor(() => pingPid(env.socket), { timeoutMs: 10_000 }).catch(() => undefined);
  const losers = kids.filter((k) => k.code !== undefined);
  const problems: string[] = [];
  if (!settled || running.length !== 1) problems.push(`${running.length} servers still running (pids ${running.map((k) => k.pid).join(' ')})`);
  if (winnerPid === undefined) problems.push('nothing answers ping on the socket');
  else if (!running.some((k) => k.pid === winnerPid)) problems.push(`the socket answers from pid ${winnerPid}, not a running starter`);
  for (const l of losers) {
    if (l.code === 0) problems.push(`a loser exited 0: ${l.out.trim()}`);
    if (!/already running|another server is starting/.test(l.out)) problems.push(`a loser's message is unclear: ${l.out.trim()}`);
  }
  // Stop whoever is left; the winner removes its own socket on the way out.
  for (const k of running) k.child.kill('SIGTERM');
  await waitFor(() => kids.every((k) => k.code !== undefined), { timeoutMs: 10_000, message: 'every server of the round exits' });
  const left = readdirSync(dirname(env.socket));
  if (left.length) problems.push(`left in the socket directory after every server exited: ${left.join(' ')}`);
  return problems.length ? `round ${round}: ${problems.join('; ')}` : undefined;
}

test('10 rounds of 4 concurrent `server start --foreground`: exactly one serves, the others refuse and exit non-zero', async (t) => {
  const env = tempEnvFor(t);
  const failures: string[] = [];
  const started = Date.now();
  for (let round = 1; round <= 10; round++) {
    const f = await race(env, round);
    if (f) failures.push(f);
  }
  t.diagnostic(`start race: ${10 - failures.length}/10 rounds clean in ${Date.now() - started} ms`);
  assert.deepEqual(failures, [], `${env.logTail(40)}`);
});

test('4 concurrent starts over a stale socket and a crashed starter\'s lock: the stale file is replaced once, by the one winner', async (t) => {
  const env = tempEnvFor(t);
  const failures: string[] = [];
  for (let round = 1; round <= 2; round++) {
    await staleSocket(env.socket);
    // A starter killed while it held the lock leaves it behind, naming a pid that is gone.
    if (round > 1) writeFileSync(`${env.socket}.lock`, `${await deadPid()}\n`);
    const f = await race(env, round);
    if (f) failures.push(f);
  }
  assert.deepEqual(failures, [], `${env.logTail(40)}`);
});

test('a regular file at the socket path is refused and left untouched', async (t) => {
  const env = tempEnvFor(t);
  mkdirSync(dirname(env.socket), { recursive: true, mode: 0o700 });
  writeFileSync(env.socket, 'precious notes\n');
  const s = startForeground(env);
  await waitFor(() => s.code !== undefined, { timeoutMs: 15_000, message: 'the server refuses to start' });
  assert.notEqual(s.code, 0);
  assert.match(s.out, /not a socket/);
  // The background start says so too, instead of "see the log".
  const bg = await env.cli(['server', 'start']);
  assert.equal(bg.code, 1);
  assert.match(bg.stderr, /exists and is not a socket; castellan leaves it alone/);
  assert.equal(readFileSync(env.socket, 'utf8'), 'precious notes\n');
});

test('a socket directory others can write to (1777) is refused, and its mode is left alone', async (t) => {
  const env = tempEnvFor(t);
  const dir = dirname(env.socket);
  mkdirSync(dir, { recursive: true });
  chmodSync(dir, 0o1777);
  const s = startForeground(env);
  await waitFor(() => s.code !== undefined, { timeoutMs: 15_000, message: 'the server refuses to start' });
  assert.notEqual(s.code, 0);
  assert.match(s.out, /writable by group or others/);
  const bg = await env.cli(['server', 'start']);
  assert.equal(bg.code, 1);
  assert.match(bg.stderr, /writable by group or others \(mode 1777\)/);
  assert.equal(statSync(dir).mode & 0o7777, 0o1777);
  assert.equal(existsSync(env.socket), false);
});

test('a server removes on exit only the socket it bound, not one that replaced it', async (t) => {
  const env = tempEnvFor(t);
  const a = startForeground(env);
  const aPid = await waitFor(() => pingPid(env.socket), { timeoutMs: 15_000, message: 'server A answers' });
  assert.equal(aPid, a.pid);
  // Someone moves A's socket aside and a second server B takes the path.
  const moved = join(dirname(env.socket), 'a.sock');
  renameSync(env.socket, moved);
  const b = startForeground(env);
  const bPid = await waitFor(() => pingPid(env.socket), { timeoutMs: 15_000, message: 'server B answers' });
  assert.equal(bPid, b.pid);
  a.child.kill('SIGTERM');
  await waitFor(() => a.code !== undefined, { timeoutMs: 10_000, message: 'server A exits' });
  assert.equal(await pingPid(env.socket), b.pid, 'B still answers on the path after A exited');
  b.child.kill('SIGTERM');
  await waitFor(() => b.code !== undefined, { timeoutMs: 10_000, message: 'server B exits' });
  assert.equal(existsSync(env.socket), false);
});
