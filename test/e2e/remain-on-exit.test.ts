// E2E for issue 30 item 8: `exit` closes its pane as in tmux; a program that failed stays with its exit code;
// [session] remain_on_exit chooses otherwise ("on" keeps every pane, "off" closes even a failure).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { closesOnExit } from '../../src/server/remain-on-exit.js';
import { tempEnvFor, type TempEnv } from '../support/temp-env.js';
import { listPanes, startAttached, waitForPane } from '../support/term-harness.js';
import { waitFor } from '../support/wait-for.js';

function remain(env: TempEnv, mode: string): void {
  mkdirSync(join(env.home, '.castellan'), { recursive: true });
  writeFileSync(join(env.home, '.castellan', 'config.toml'), `[session]\nremain_on_exit = "${mode}"\n`);
}

test('closesOnExit: "failed" closes a clean exit only; "on" never; "off" always', () => {
  assert.equal(closesOnExit('failed', { code: 0 }), true);
  assert.equal(closesOnExit('failed', { code: 3 }), false);
  assert.equal(closesOnExit('failed', { code: 0, signal: 9 }), false, 'killed is not a clean exit');
  assert.equal(closesOnExit('failed', { code: null, signal: 15 }), false);
  assert.equal(closesOnExit('on', { code: 0 }), false);
  assert.equal(closesOnExit('off', { code: 2 }), true);
  assert.equal(closesOnExit('off', { code: null, signal: 9 }), true);
});

test('`exit` in a pane closes it, as in tmux; `exit 3` leaves the pane showing its code; Enter then closes the last pane and the session', async (t) => {
  const env = tempEnvFor(t);
  const h = await startAttached(env, { cols: 100, rows: 24 });
  h.prefix('%');
  await waitForPane(env, 'w1:p2', (p) => p.focused);
  h.write('exit\r');
  await waitFor(async () => (await listPanes(env)).map((p) => p.pane_id).join() === 'w1:p1', { message: 'the pane that ran exit is gone' });
  await waitForPane(env, 'w1:p1', (p) => p.focused, { message: 'the other pane has the focus' });
  h.write('exit 3\r');
  const p1 = await waitForPane(env, 'w1:p1', (p) => !!p.exited, { message: 'a failed exit keeps the pane' });
  assert.deepEqual(p1.exited, { code: 3, signal: null });
  await h.waitForText(/exited with code 3/);
  h.write('\r');
  const x = await h.waitForExit(8000);
  assert.equal(x.exitCode, 0, 'the client leaves when the last pane is closed');
});

test('remain_on_exit = "on" keeps a clean exit; "off" closes a failure', async (t) => {
  const on = tempEnvFor(t);
  remain(on, 'on');
  assert.equal((await on.cli(['server', 'start'])).code, 0);
  const a = (await on.call<{ pane_id: string }>('pane.split', { pane_id: 'w1:p1', direction: 'down', command: ['sh', '-c', 'echo KEPT; exit 0'] })).pane_id;
  const kept = await waitForPane(on, a, (p) => !!p.exited, { message: 'the clean exit is kept with "on"' });
  assert.deepEqual(kept.exited, { code: 0, signal: null });

  const off = tempEnvFor(t);
  remain(off, 'off');
  assert.equal((await off.cli(['server', 'start'])).code, 0);
  const b = (await off.call<{ pane_id: string }>('pane.split', { pane_id: 'w1:p1', direction: 'down', command: ['sh', '-c', 'exit 4'] })).pane_id;
  await waitFor(async () => !(await listPanes(off)).some((p) => p.pane_id === b), { message: 'the failed pane is closed with "off"' });
  assert.deepEqual((await listPanes(off)).map((p) => p.pane_id), ['w1:p1'], 'the first pane stays');
});

test('a bad remain_on_exit value is reported by config check and the default holds', async (t) => {
  const env = tempEnvFor(t);
  remain(env, 'sometimes');
  const r = await env.cli(['config', 'check']);
  assert.notEqual(r.code, 0);
  assert.match(r.stdout + r.stderr, /remain_on_exit/);
  assert.equal((await env.cli(['server', 'start'])).code, 0);
  const p = (await env.call<{ pane_id: string }>('pane.split', { pane_id: 'w1:p1', direction: 'down', command: ['sh', '-c', 'exit 6'] })).pane_id;
  const info = await waitForPane(env, p, (x) => !!x.exited, { message: 'the default keeps a failure' });
  assert.equal(info.exited?.code, 6);
});
