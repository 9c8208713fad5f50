// The portable backend's processes start from a helper shell (src/platform/proc/spawner.ts): what a tool answers, what
// counts as no answer, hostile tools and arguments, and a process that asked is not kept alive by the helper.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pidExists } from '../../src/platform/proc/pid.js';
import { waitFor } from '../api/in-process.js';
import { backends } from '../../src/platform/proc/index.js';
import { runOffThread } from '../../src/platform/proc/spawner.js';

const opts = { env: process.env, timeout: 2000, maxBuffer: 1024 * 1024 };

test('a tool that ran and exited non-zero still answered; one that cannot start, or runs past its timeout, did not', async () => {
  // ps -p and lsof -p exit 1 when one pid asked about is gone, and print the others.
  assert.deepEqual(await runOffThread('sh', ['-c', 'echo rows; exit 1'], opts), { stdout: 'rows\n' });
  assert.deepEqual(await runOffThread('/nonexistent/tool', [], opts), { code: 'ENOENT' });
  const slow = await runOffThread('sh', ['-c', 'echo partial; exec sleep 5'], { ...opts, timeout: 200 });
  assert.equal(slow.stdout, undefined, 'killed at its timeout: no answer');
});

test('ps -p over a gone pid and a live one answers the live one (the portable backend, off the thread)', { skip: process.platform === 'win32' }, async () => {
  const gone = spawn('true');
  await new Promise((r) => gone.once('exit', r));
  const [dead, self] = await Promise.all([backends.portable.readStatAsync(gone.pid!), backends.portable.readStatAsync(process.pid)]);
  assert.equal(dead, undefined);
  assert.equal(self?.pid, process.pid, 'the live pid is answered though ps exited 1');
  assert.equal(await backends.portable.foregroundPgidAsync(process.pid).then(() => 'answered'), 'answered');
});

test('a tool is started by the helper shell, not by a fork of this process, and the same shell serves every question', async () => {
  const parents = await Promise.all(Array.from({ length: 5 }, () => runOffThread('sh', ['-c', 'echo $PPID'], opts)));
  const ppids = new Set(parents.map((r) => Number(r.stdout)));
  assert.equal(ppids.size, 1, `one parent for all: ${[...ppids]}`);
  const [helper] = ppids;
  assert.notEqual(helper, process.pid);
  const row = (await runOffThread('ps', ['-o', 'ppid=', '-p', String(helper)], opts)).stdout;
  assert.equal(Number(row), process.pid, 'the helper is this process\'s child');
});

test('many questions at once each get their own answer; arguments keep their spaces and globs', async () => {
  const asks = Array.from({ length: 40 }, (_, i) => runOffThread('sh', ['-c', `printf '%s|%s' "$0" ${i}`, `a b  c*`], opts));
  const got = await Promise.all(asks);
  got.forEach((r, i) => assert.deepEqual(r, { stdout: `a b  c*|${i}` }));
});

test('hostile tools: one that reads stdin gets nothing of the questions; one that prints a forged end line, binary, or no newline is read whole', async () => {
  // A tool reading its stdin would otherwise swallow the questions after it.
  const [reader, after] = await Promise.all([runOffThread('sh', ['-c', 'cat; echo done'], opts), runOffThread('echo', ['next'], opts)]);
  assert.deepEqual(reader, { stdout: 'done\n' });
  assert.deepEqual(after, { stdout: 'next\n' });
  // An end line with a made-up mark and this question's number is output like any other.
  const forged = await runOffThread('sh', ['-c', "printf '\\n00000000000000000000000000000000 1 0\\nrest'"], opts);
  assert.equal(forged.stdout, '\n00000000000000000000000000000000 1 0\nrest');
  const bin = await runOffThread('sh', ['-c', "printf 'a\\0b\\377'"], opts);
  assert.equal(bin.stdout?.slice(0, 3), 'a\0b');
  assert.deepEqual(await runOffThread('printf', ['no newline'], opts), { stdout: 'no newline' });
});

test('hostile sizes and hangs: past its output limit or its time a tool is killed with its shell, and the next question is answered', async () => {
  const big = await runOffThread('sh', ['-c', 'yes 0123456789abcdef | head -c 300000'], { ...opts, maxBuffer: 64 * 1024 });
  assert.equal(big.stdout, undefined, 'over its limit: no answer');
  // The hung tool's own child must die too: it is in the helper's process group.
  const pidFile = join(mkdtempSync(join(tmpdir(), 'cst-spawner-')), 'pid');
  const hung = runOffThread('sh', ['-c', `sleep 30 & echo $! > ${pidFile}; echo started; wait`], { ...opts, timeout: 300 });
  const queued = runOffThread('sh', ['-c', 'echo after the hang'], opts);
  assert.equal((await hung).stdout, undefined, 'killed at its timeout: no answer');
  assert.deepEqual(await queued, { stdout: 'after the hang\n' }, 'the question behind it goes to a new shell');
  const sleeper = Number(readFileSync(pidFile, 'utf8'));
  await waitFor(() => !pidExists(sleeper), { timeoutMs: 5000, message: `the hung tool's child ${sleeper} is killed` });
  // Each tool has its own shell: one stuck until its timeout does not hold up another.
  const stuck = runOffThread('sleep', ['5'], { ...opts, timeout: 1500 });
  const t0 = performance.now();
  assert.deepEqual(await runOffThread('echo', ['beside it'], opts), { stdout: 'beside it\n' });
  assert.ok(performance.now() - t0 < 1000, `another tool answered in ${(performance.now() - t0).toFixed(0)} ms beside a stuck one`);
  assert.equal((await stuck).stdout, undefined);
  // Arguments the line cannot carry (a tab, a newline, an empty one) still run, started directly.
  assert.deepEqual(await runOffThread('printf', ['%s|', 'a\tb', '', 'c\nd'], opts), { stdout: 'a\tb||c\nd|' });
});

test('a process that asked exits when it is done: the helper keeps nothing alive', { timeout: 20_000 }, async () => {
  const url = new URL('../../dist/platform/proc/spawner.js', import.meta.url).href;
  const child = spawn(process.execPath, ['--input-type=module', '-e', `const { runOffThread } = await import(${JSON.stringify(url)}); const r = await runOffThread('sh', ['-c', 'echo ok'], { env: process.env, timeout: 2000, maxBuffer: 1024 }); process.stdout.write(r.stdout);`], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  const code = await new Promise((r) => child.once('exit', r));
  assert.equal(code, 0, 'answered, then exited (13 would be an await left hanging)');
  assert.equal(out, 'ok\n');
});
