// The remote half of a machine link (`castellan machine bridge`) keeps its socket connection however long the far side
// is quiet: the server closes answered, idle connections after 200 ms (the nc -U example), never a bridge's.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { BIN, tempEnvFor } from '../support/temp-env.js';
import { waitFor } from '../support/wait-for.js';

test('a bridge quiet for a second after its hello still carries the next request', async (t) => {
  const env = tempEnvFor(t);
  assert.equal((await env.cli(['server', 'start'])).code, 0);
  const child = spawn(process.execPath, [BIN, 'machine', 'bridge'], { env: env.env, stdio: ['pipe', 'pipe', 'pipe'] });
  t.after(() => child.kill('SIGKILL'));
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
  await waitFor(() => out.includes('\n'), { timeoutMs: 10_000, message: 'the hello line', observe: () => out });
  assert.match(out.split('\n')[0], /castellan_bridge/);
  // Longer than the server's idle close (200 ms), as a slow link or a person would be.
  await new Promise((r) => setTimeout(r, 1000)); // the quiet time is the test, not a wait for something
  child.stdin.write('{"id":7,"method":"ping","params":{}}\n');
  await waitFor(() => /"id":7/.test(out), { timeoutMs: 10_000, message: 'the ping answered through the bridge', observe: () => out });
  assert.equal(child.exitCode, null, 'the bridge is still up');
});
