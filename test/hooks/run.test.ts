// The hook runner: payload on stdin, exit codes, capped output, and timeouts that kill the whole process group in bounded time.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCaptured } from '../../src/hooks/run.js';
import { waitFor } from '../support/wait-for.js';
import { alive, makeWorld } from './helpers.js';

const w = makeWorld();
after(() => w.cleanup());
const base = { cwd: w.root, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } };
const pidsIn = (file: string) => readFileSync(file, 'utf8').trim().split(/\s+/).map(Number);

describe('runCaptured', () => {
  test('feeds stdin, returns exit code and output', async () => {
    const r = await runCaptured({ ...base, file: '/bin/sh', args: ['-c', 'read l; echo "got $l"; echo oops >&2; exit 3'], input: 'hello\n', timeoutMs: 5000 });
    assert.equal(r.exitCode, 3);
    assert.equal(r.stdout, 'got hello\n');
    assert.equal(r.stderr, 'oops\n');
    assert.equal(r.timedOut, false);
  });

  test('a command that never reads stdin still completes', async () => {
    const r = await runCaptured({ ...base, file: '/bin/sh', args: ['-c', 'exit 0'], input: 'x'.repeat(200_000), timeoutMs: 5000 });
    assert.equal(r.exitCode, 0);
  });

  test('output is capped, not fatal', async () => {
    const r = await runCaptured({ ...base, file: '/bin/sh', args: ['-c', 'head -c 300000 /dev/zero | tr "\\0" a'], timeoutMs: 5000, maxOutput: 1000 });
    assert.equal(r.exitCode, 0);
    assert.equal(r.stdout.length, 1000);
    assert.equal(r.truncated, true);
  });

  test('timeout kills the whole group, grandchildren included, in bounded time', async () => {
    const pidFile = join(w.root, 'pids-timeout');
    const started = Date.now();
    const r = await runCaptured({
      ...base,
      file: '/bin/sh',
      args: ['-c', `sleep 1000 & echo "$$ $!" > ${pidFile}; sleep 1000`],
      timeoutMs: 300,
    });
    const took = Date.now() - started;
    assert.equal(r.timedOut, true);
    assert.ok(took < 300 + 1000, `took ${took} ms`);
    const pids = pidsIn(pidFile);
    await waitFor(() => pids.every((p) => !alive(p)), { timeoutMs: 2000, message: `processes ${pids} gone` });
  });

  test('settles even if an escaped grandchild holds the pipes open', async () => {
    const pidFile = join(w.root, 'pids-escape');
    const started = Date.now();
    // setsid puts the grandchild outside the group: it cannot be killed with it, but must not hang us.
    const r = await runCaptured({ ...base, file: '/bin/sh', args: ['-c', `setsid sleep 30 & echo $! > ${pidFile}; exit 0`], timeoutMs: 5000 });
    const took = Date.now() - started;
    assert.equal(r.exitCode, 0);
    assert.ok(took < 2000, `took ${took} ms`);
    for (const p of pidsIn(pidFile)) {
      try {
        process.kill(p, 'SIGKILL');
      } catch {
        /* setsid may have forked: the pid we know is gone */
      }
    }
  });

  test('a hook that exits leaves nothing running in its group', async () => {
    const pidFile = join(w.root, 'pids-leftover');
    const r = await runCaptured({ ...base, file: '/bin/sh', args: ['-c', `sleep 1000 >/dev/null 2>&1 & echo $! > ${pidFile}`], timeoutMs: 5000 });
    assert.equal(r.exitCode, 0);
    const [p] = pidsIn(pidFile);
    await waitFor(() => !alive(p), { timeoutMs: 2000, message: 'leftover sleep killed' });
  });

  test('a bad cwd is a spawn error, not a hang', async () => {
    const r = await runCaptured({ ...base, cwd: join(w.root, 'nope'), file: '/bin/sh', args: ['-c', 'true'], timeoutMs: 5000 });
    assert.ok(r.spawnError, JSON.stringify(r));
    assert.equal(existsSync(join(w.root, 'nope')), false);
  });
});
