// The worktree room's git runner: every byte git printed is read even when the event loop is busy; a hung git is killed at its deadline.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { runGit } from '../../src/worktree/run-git.js';

const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };

test('git output is read whole even when the event loop is busy while git exits', async () => {
  for (let i = 0; i < 5; i++) {
    const p = runGit({ args: ['--version'], cwd: tmpdir(), env, timeoutMs: 10_000, maxOutput: 1024 });
    // Block the loop well past git's exit, so timers and pipe reads are due at once when it comes back.
    const until = Date.now() + 400;
    while (Date.now() < until) {
      /* busy */
    }
    const r = await p;
    assert.equal(r.exitCode, 0);
    assert.match(r.stdout, /^git version /, `run ${i}: ${JSON.stringify(r)}`);
  }
});

test('a git that hangs is killed with its process group at the deadline and reported as timed out, never as an answer', async () => {
  const t0 = Date.now();
  const r = await runGit({ args: ['-c', 'alias.hang=!sleep 30', 'hang'], cwd: tmpdir(), env, timeoutMs: 300, maxOutput: 1024 });
  assert.equal(r.timedOut, true);
  assert.notEqual(r.exitCode, 0);
  assert.ok(Date.now() - t0 < 5000, 'bounded by the deadline and the kill grace');
});

test('output past the cap is marked truncated; a missing program is a spawn error', async () => {
  const r = await runGit({ args: ['help', '-a'], cwd: tmpdir(), env, timeoutMs: 10_000, maxOutput: 100 });
  assert.equal(r.truncated, true);
  assert.ok(r.stdout.length <= 100);
  const gone = await runGit({ args: ['--version'], cwd: tmpdir(), env: { PATH: '/nonexistent' }, timeoutMs: 5000, maxOutput: 100 });
  assert.ok(gone.spawnError, JSON.stringify(gone));
});
