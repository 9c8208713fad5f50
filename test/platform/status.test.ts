// `castellan server status` says once which process backend this platform uses and what it lacks (issue 33).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tempEnvFor } from '../support/temp-env.js';

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
