// The portable backend's processes start from a worker (src/platform/proc/spawner.ts): what a tool answers, what counts
// as no answer, and a process that asked is not kept alive by the worker.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
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

test('a process that asked exits when it is done: the worker keeps nothing alive', { timeout: 20_000 }, async () => {
  const url = new URL('../../dist/platform/proc/spawner.js', import.meta.url).href;
  const child = spawn(process.execPath, ['--input-type=module', '-e', `const { runOffThread } = await import(${JSON.stringify(url)}); const r = await runOffThread('sh', ['-c', 'echo ok'], { env: process.env, timeout: 2000, maxBuffer: 1024 }); process.stdout.write(r.stdout);`], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  const code = await new Promise((r) => child.once('exit', r));
  assert.equal(code, 0, 'answered, then exited (13 would be an await left hanging)');
  assert.equal(out, 'ok\n');
});
