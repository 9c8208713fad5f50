// Ending pane programs (terminate.ts): a session's members get the signals, and so does a leader still in our session.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { endSessions, sessionMembers } from '../../src/server/terminate.js';
import { processAlive } from '../../src/platform/proc/index.js';

const HAS_PROC = existsSync('/proc/self/stat');
const STEPS = [
  { signal: 'SIGHUP' as const, waitMs: 1000 },
  { signal: 'SIGKILL' as const, waitMs: 1000 },
];

test('a leader that has not yet made its own session (our child, in our session) is still ended', { skip: !HAS_PROC && 'no /proc' }, async () => {
  // node-pty's child runs setsid() after the fork: until then it is in the server's session, like this child.
  const child = spawn('sleep', ['30'], { stdio: 'ignore' });
  const exited = new Promise<NodeJS.Signals | null>((r) => child.once('exit', (_c, sig) => r(sig)));
  try {
    assert.ok(child.pid);
    assert.deepEqual(sessionMembers(new Set([child.pid])), [child.pid]);
    assert.equal(await endSessions([child.pid], STEPS), 0);
    assert.equal(await exited, 'SIGHUP');
  } finally {
    child.kill('SIGKILL');
  }
});

test('a session leader and what it started are ended together; nothing else is touched', { skip: !HAS_PROC && 'no /proc' }, async () => {
  // detached: the child leads its own session, and its background sleep stays in it.
  const child = spawn('sh', ['-c', 'sleep 30 & echo $!; exec sleep 31'], { stdio: ['ignore', 'pipe', 'ignore'], detached: true });
  const bystander = spawn('sleep', ['30'], { stdio: 'ignore', detached: true });
  try {
    const bg = Number(await new Promise<string>((r) => child.stdout!.once('data', (d: Buffer) => r(d.toString().trim()))));
    const [leader, other] = [child.pid, bystander.pid];
    assert.ok(bg > 0 && leader && other);
    assert.deepEqual(sessionMembers(new Set([leader]))?.sort(), [leader, bg].sort());
    assert.equal(await endSessions([leader], STEPS), 0);
    assert.equal(processAlive(bg), false);
    assert.equal(processAlive(other), true, 'a process in another session is left alone');
    assert.equal(sessionMembers(new Set([process.pid]))?.includes(process.pid), false, 'never this process');
  } finally {
    child.kill('SIGKILL');
    bystander.kill('SIGKILL');
  }
});
