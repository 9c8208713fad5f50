// Hostile payloads through the background hook line (the line castellan installs for state-only events): too big,
// binary, not JSON, and an agent that never closes stdin. The agent is never answered with output, never kept
// waiting by the bridge, and a bad payload is dropped without a report; the next good event still lands.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { installedHookCommand } from '../../src/integrations/command-line.js';
import { HOOK_PAYLOAD_MAX_BYTES } from '../../src/integrations/hook-input.js';
import { BIN, tempEnvFor, type TempEnv } from '../support/temp-env.js';
import { waitForPane } from '../support/term-harness.js';
import { waitFor } from '../support/wait-for.js';

const line = (event: string) => installedHookCommand([process.execPath, BIN], 'claude', event);

/** Runs the line as a Node agent does; resolves when sh has exited and its pipes are closed. */
function runAs(env: TempEnv, event: string, payload: Buffer | string, o: { keepOpen?: boolean; killAfterMs?: number } = {}) {
  const p = spawn('/bin/sh', ['-c', line(event)], {
    env: { ...env.env, CASTELLAN_ENV: '1', CASTELLAN_SOCKET: env.socket, CASTELLAN_PANE_ID: 'w1:p1' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  p.stdout.on('data', (d) => (out += d));
  p.stderr.on('data', (d) => (out += d));
  p.stdin.on('error', () => undefined);
  if (o.keepOpen) p.stdin.write(payload);
  else p.stdin.end(payload);
  const t = o.killAfterMs ? setTimeout(() => p.kill('SIGKILL'), o.killAfterMs) : undefined;
  return new Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string; stdin: typeof p.stdin }>((resolve) =>
    p.on('close', (code, signal) => {
      clearTimeout(t);
      resolve({ code, signal, out, stdin: p.stdin });
    }),
  );
}

const bridgeLog = (env: TempEnv) => {
  const f = join(env.stateDir, 'hook-bridge.log');
  return existsSync(f) ? readFileSync(f, 'utf8') : '';
};

test('hostile payloads on a background state event: dropped, silent, and the next event still lands', { timeout: 60_000 }, async (t) => {
  const env = tempEnvFor(t, { env: { CASTELLAN_HOOK_DEBUG: '1' } });
  assert.equal((await env.cli(['server', 'start', '--cols', '100', '--rows', '30'])).code, 0);
  // Larger than the bridge takes: sh stops reading one byte past the limit, the bridge sees "too big" and drops it.
  const huge = await runAs(env, 'Notification', Buffer.alloc(HOOK_PAYLOAD_MAX_BYTES + 4096, 0x61));
  assert.deepEqual([huge.code, huge.out], [0, '']);
  // NUL bytes and invalid UTF-8, and a payload that is not JSON: no output, exit 0.
  const binary = await runAs(env, 'Notification', Buffer.from([0x7b, 0x00, 0xff, 0xfe, 0x22, 0x00, 0x7d]));
  assert.deepEqual([binary.code, binary.out], [0, '']);
  const notJson = await runAs(env, 'Notification', 'not json at all {{{');
  assert.deepEqual([notJson.code, notJson.out], [0, '']);
  // Under load (13 on 2 cores) sh may still be feeding the 8 MiB when the bridge's 1 s read deadline ends it: dropped either way.
  await waitFor(() => /claude Notification pane=w1:p1 dropped: (?:.*(?:8 MiB|larger)|stdin not closed within \d+ ms)/i.test(bridgeLog(env)), { timeoutMs: 20_000, message: 'the too-big Notification dropped', observe: () => bridgeLog(env) });
  // The pane's badge was not moved by any of them; a good event after them lands.
  const ok = await runAs(env, 'UserPromptSubmit', JSON.stringify({ session_id: 's1', hook_event_name: 'UserPromptSubmit', prompt: 'hi' }));
  assert.deepEqual([ok.code, ok.out], [0, '']);
  const p = await waitForPane(env, 'w1:p1', (x) => x.agent.state === 'working' && x.agent.source === 'hook', { timeoutMs: 20_000, message: 'the good event after the bad ones' });
  assert.equal(p.agent.name, 'claude');
});

test('an agent that never closes the hook stdin is not answered early and can kill the line; nothing is reported', { timeout: 30_000 }, async (t) => {
  const env = tempEnvFor(t, { env: { CASTELLAN_HOOK_DEBUG: '1' } });
  assert.equal((await env.cli(['server', 'start', '--cols', '100', '--rows', '30'])).code, 0);
  // The line waits for the payload's end as the bridge would (here the agent's own hook timeout ends it).
  const r = await runAs(env, 'Notification', '{"hook_event_name":"Notification"', { keepOpen: true, killAfterMs: 1500 });
  assert.equal(r.signal, 'SIGKILL');
  r.stdin.destroy();
  // A later complete event still lands, and no half payload was reported as done before it.
  await runAs(env, 'UserPromptSubmit', '{"hook_event_name":"UserPromptSubmit","prompt":"x"}');
  const p = await waitForPane(env, 'w1:p1', (x) => x.agent.source === 'hook', { timeoutMs: 20_000 });
  assert.equal(p.agent.state, 'working');
});
