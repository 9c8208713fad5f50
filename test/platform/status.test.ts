// `castellan server status` says once which process backend this platform uses and what it lacks (issue 33).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BIN, runNode, tempEnvFor } from '../support/temp-env.js';

test('server status names the platform and backend; forced portable, it lists what does not work as well', async (t) => {
  const env = tempEnvFor(t);
  const plain = await env.cli(['server', 'status'], {});
  assert.equal(plain.code, 3, plain.stderr);
  assert.match(plain.stdout, new RegExp(`platform ${process.platform} ${process.arch}, processes read (from /proc|with ps and lsof)`));
  const forced = await env.cli(['server', 'status', '--json'], {});
  const j = JSON.parse(forced.stdout) as { platform: { backend: string; lacks: string[] } };
  assert.ok(['proc', 'portable'].includes(j.platform.backend));
  const envP = tempEnvFor(t, { env: { CASTELLAN_PLATFORM_BACKEND: 'portable' } });
  const p = await envP.cli(['server', 'status']);
  assert.match(p.stdout, /portable backend\) \(forced by CASTELLAN_PLATFORM_BACKEND=portable\)/);
  assert.match(p.stdout, /sessions are read as ps's `sess` token/);
  assert.equal(p.stdout.split('\n').filter((l) => l.includes('sess` token')).length, 1, 'said once');
});

test('with a server running, server status describes the server\'s backend, not the one this CLI would choose', { skip: process.platform !== 'linux' && 'needs /proc to force the other way' }, async (t) => {
  // The server's environment forces the portable backend; the CLI asking runs with /proc.
  const env = tempEnvFor(t, { env: { CASTELLAN_PLATFORM_BACKEND: 'portable' } });
  const started = await env.cli(['server', 'start']);
  assert.equal(started.code, 0, started.stderr);
  const cliEnv = { ...env.env, CASTELLAN_PLATFORM_BACKEND: 'proc' };
  const j = JSON.parse((await runNode([BIN, 'server', 'status', '--json'], { env: cliEnv, cwd: env.home })).stdout) as { running: boolean; platform: { backend: string; forced?: string } };
  assert.equal(j.running, true);
  assert.equal(j.platform.backend, 'portable');
  assert.equal(j.platform.forced, 'portable');
  const text = await runNode([BIN, 'server', 'status'], { env: cliEnv, cwd: env.home });
  assert.match(text.stdout, /server running/);
  assert.match(text.stdout, /portable backend\) \(forced by CASTELLAN_PLATFORM_BACKEND=portable\)/);
});
