// E2E (issue 13): break-pane (prefix !), join-pane and respawn-pane through the real bin, read back from the screen.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tempEnvFor } from '../support/temp-env.js';
import { listPanes, PROMPT_RE, startAttached, type TermHarness } from '../support/term-harness.js';
import { waitFor } from '../support/wait-for.js';

/** Frames whose border names pane `n` (the border may show `p2` or the whole id `w1:p2`). */
const frame = (h: TermHarness, n: string) => waitFor(async () => (await h.frames()).find((f) => f.label === n || f.label.endsWith(`:${n}`)), { timeoutMs: 10_000, message: `a frame for ${n}` });

test('prefix ! breaks a pane out to its own window; pane join brings it back; the program lives on', async (t) => {
  const env = tempEnvFor(t);
  const h = await startAttached(env, { cols: 100, rows: 30 });
  h.prefix('%');
  const p2 = await frame(h, 'p2');
  await h.waitForText(PROMPT_RE, { region: p2.inner });
  h.write('X=KEPT-$((6*7)); echo $X\r');
  await h.waitForText('KEPT-42', { region: p2.inner });
  const pid = (await listPanes(env)).find((p) => p.pane_id === 'w1:p2')!.pid;

  h.prefix('!');
  await h.waitForText(/(^| )2:\S*\*/, { region: { top: 29, bottom: 30 }, message: 'a second window, current, in the bar' });
  const alone = await frame(h, 'p2');
  assert.equal(alone.w, 100, 'the pane has the whole window');
  await waitFor(async () => (await listPanes(env)).find((p) => p.pane_id === 'w1:p2' && p.window_id === 'w2'), { message: 'w1:p2 now lives in w2' });
  h.write('echo $X-STILL\r');
  await h.waitForText('KEPT-42-STILL', { region: alone.inner, message: 'the same shell, with its variable' });

  const join = await env.cli(['pane', 'join', '--pane', 'w1:p2', '--target', 'w1:p1', '--direction', 'down']);
  assert.equal(join.code, 0, join.stderr);
  assert.equal(join.stdout.trim(), 'w1:p2 w1');
  const back = await waitFor(async () => (await h.frames()).find((f) => (f.label === 'p2' || f.label.endsWith(':p2')) && f.y > 0 && f.w === 100), { message: 'p2 below p1 again' });
  assert.ok(back);
  await h.waitForText(/(^| )1:\S*\*(?!.* 2:)/, { region: { top: 29, bottom: 30 }, message: 'one window left' });
  assert.equal((await listPanes(env)).find((p) => p.pane_id === 'w1:p2')!.pid, pid, 'the same program all along');
});

test('pane respawn reruns an exited command in its directory; a running one needs --kill', async (t) => {
  const env = tempEnvFor(t);
  const h = await startAttached(env, { cols: 100, rows: 30 });
  const split = await env.cli(['pane', 'split', '--cwd', '/tmp', '--', 'sh', '-c', 'echo RUN-$(pwd)-$$; exit 3']);
  assert.equal(split.code, 0, split.stderr);
  const id = split.stdout.trim().split(/\s+/)[0];
  const f = await frame(h, id.split(':')[1]);
  await h.waitForText(/exited with code 3/, { region: f.inner });
  const first = (await h.waitForText(/RUN-\/tmp-\d+/, { region: f.inner })).text;
  const again = await env.cli(['pane', 'respawn', '--pane', id]);
  assert.equal(again.code, 0, again.stderr);
  await waitFor(async () => (await h.regionText(f.inner)).some((l) => /RUN-\/tmp-\d+/.test(l) && !l.includes(first)), { message: 'a second run with a new pid' });
  const running = await env.cli(['pane', 'respawn', '--pane', 'w1:p1']);
  assert.equal(running.code, 1);
  assert.match(running.stderr, /still running/);
});

test('prefix S synchronizes a window: one keystroke reaches every pane; the tab shows S', async (t) => {
  const env = tempEnvFor(t);
  const h = await startAttached(env, { cols: 100, rows: 30 });
  h.prefix('%');
  const p2 = await frame(h, 'p2');
  await h.waitForText(PROMPT_RE, { region: p2.inner });
  h.prefix('S');
  await h.waitForText(/ 1:\S*\*S/, { region: { top: 29, bottom: 30 }, message: 'the tab marks the window synchronized' });
  h.write('echo SYNC-$((40+2))\r');
  const p1 = await frame(h, 'p1');
  await h.waitForText('SYNC-42', { region: p1.inner, message: 'the unfocused pane got the keys' });
  await h.waitForText('SYNC-42', { region: p2.inner, message: 'the focused pane got them too' });
  const off = await env.cli(['window', 'synchronize', 'off']);
  assert.equal(off.stdout.trim(), 'w1 off');
  h.write('echo SOLO-$((40+3))\r');
  await h.waitForText('SOLO-43', { region: p2.inner });
  assert.ok(!(await h.regionText(p1.inner)).some((l) => l.includes('SOLO-43')), 'only the focused pane once off');
});
