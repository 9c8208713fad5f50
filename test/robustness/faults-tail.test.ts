// Hostile case: a starved server event loop (load, a long synchronous task) must not lose the last output of a pane that exits.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnPty } from '../../src/server/pty.js';

/** Blocks the event loop for `ms` at every turn: node-pty's 200 ms destroy timer then runs before the fd is read again. */
function starveLoop(ms: number): () => void {
  const iv = setInterval(() => {
    const until = Date.now() + ms;
    while (Date.now() < until);
  }, 1);
  return () => clearInterval(iv);
}

test('every line of `seq 1 3000` arrives although the event loop stalls 250 ms at a time (3 rounds)', async () => {
  for (let round = 1; round <= 3; round++) {
    const p = spawnPty({ command: ['sh', '-c', 'seq 1 3000; exit 7'], cwd: '/', env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, cols: 80, rows: 24 });
    const chunks: Buffer[] = [];
    p.onData((d) => chunks.push(d));
    const stop = starveLoop(250);
    const exit = await new Promise<{ code: number | null }>((r) => p.onExit(r)).finally(stop);
    assert.equal(exit.code, 7);
    const lines = Buffer.concat(chunks).toString('utf8').split('\r\n').filter(Boolean);
    assert.equal(lines.length, 3000, `round ${round}: ${lines.length} lines, the last "${lines.at(-1)}"`);
    assert.equal(lines.at(-1), '3000', `round ${round}: the tail`);
  }
});
