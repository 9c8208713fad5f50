// E2E (issue 13): prefix w opens the tree, / filters, Enter switches the focused pane; a popup draws over the layout and goes on exit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tempEnvFor } from '../support/temp-env.js';
import { KEY, listPanes, PROMPT_RE, startAttached } from '../support/term-harness.js';
import { waitFor } from '../support/wait-for.js';

test('choose-tree: prefix w lists panes, / filters to one, Enter focuses it', async (t) => {
  const env = tempEnvFor(t);
  const h = await startAttached(env, { cols: 120, rows: 32, timeoutMs: 30_000 });
  h.prefix('%');
  const p2 = await h.waitForFrame('p2');
  await h.waitForText(PROMPT_RE, { region: p2.inner });
  await env.cli(['pane', 'rename', '--pane', 'w1:p1', 'target-shell']);
  await waitFor(async () => (await listPanes(env)).find((p) => p.pane_id === 'w1:p2')?.focused, { message: 'p2 focused after the split', timeoutMs: 20_000 });
  h.prefix('w');
  await h.waitForText(/choose a pane/, { timeoutMs: 20_000 });
  await h.waitForText(/▸ 1: \S+\*\s+\(2 panes\)/, { timeoutMs: 20_000 });
  h.write(KEY.right);
  await h.waitForText(/w1:p1\s+target-shell/, { timeoutMs: 20_000 });
  await h.waitForText(/preview: w1:p/, { message: 'a preview of the highlighted pane', timeoutMs: 20_000 });
  h.write('/target');
  await h.waitForText(/filter: target█/, { timeoutMs: 20_000 });
  await waitFor(async () => !(await h.screenText()).some((l) => /w1:p2\s/.test(l)), { message: 'the filter hides w1:p2', timeoutMs: 20_000 });
  h.write(KEY.enter);
  await waitFor(async () => (await listPanes(env)).find((p) => p.pane_id === 'w1:p1')?.focused, { message: 'Enter focuses w1:p1', timeoutMs: 20_000 });
  await waitFor(async () => !(await h.screenText()).some((l) => l.includes('choose a pane')), { message: 'the chooser closes', timeoutMs: 20_000 });
  await h.waitForFrame('p1');
  await h.waitForFrame('p2');
});

test('popup: output drawn over the layout in a titled border; program exits → gone, the layout repainted intact', async (t) => {
  const env = tempEnvFor(t);
  const h = await startAttached(env, { cols: 100, rows: 30, timeoutMs: 30_000 });
  const p1 = await h.waitForFrame('p1');
  h.write('echo under-the-popup\r');
  await h.waitForText(/^under-the-popup/, { region: p1.inner, timeoutMs: 20_000 });
  const r = await env.cli(['popup', '-w', '60', '-h', '12', '-T', 'e2e popup', '--', 'sh', '-c', 'echo POPUP-OUTPUT; read line; echo "typed:$line"; read _']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^popup1 c1 58x10$/m);
  const bad = await env.cli(['popup', '-w', '1', '--', 'true']);
  assert.equal(bad.code, 2, 'a bad size is a usage error');
  assert.match(bad.stderr, /-w 1: a size is cells/);
  const second = await env.cli(['display-popup', '--', 'true']);
  assert.equal(second.code, 1, 'one popup per client');
  assert.match(second.stderr, /already shows popup popup1/);
  // Centred: 60x12 on 100x30 starts at column 20, row 9.
  await h.waitForText(/╭─ e2e popup ─+╮/, { region: { left: 20, right: 80, top: 9, bottom: 10 }, timeoutMs: 20_000 });
  await h.waitForText('POPUP-OUTPUT', { region: { left: 21, right: 79, top: 10, bottom: 20 }, timeoutMs: 20_000 });
  h.write('hello\r');
  await h.waitForText('typed:hello', { region: { left: 21, right: 79, top: 10, bottom: 20 }, timeoutMs: 20_000 });
  // Like tmux's display-popup -E, the popup goes the moment its program exits (here: after one more line).
  h.write('\r');
  // The program exited: the popup goes and what was under it is drawn again.
  await waitFor(async () => !(await h.screenText()).some((l) => l.includes('e2e popup') || l.includes('POPUP-OUTPUT')), { message: 'popup gone', timeoutMs: 20_000 });
  const frame = await h.waitForFrame('p1');
  assert.equal(frame.w, 100);
  await h.waitForText(/^under-the-popup/, { region: frame.inner, timeoutMs: 20_000 });
  // Keys reach the pane again.
  h.write('echo after-popup\r');
  await h.waitForText(/^after-popup/, { region: frame.inner, timeoutMs: 20_000 });
  // prefix u opens a shell popup; prefix u in it closes it early.
  h.prefix('u');
  await h.waitForText(/╭─ .*sh ─+╮/, { timeoutMs: 20_000 });
  h.prefix('u');
  await waitFor(async () => !(await h.screenText()).some((l) => l.includes('╭─ ') && /sh ─+╮/.test(l)), { message: 'prefix u closes the popup', timeoutMs: 20_000 });
  assert.deepEqual((await listPanes(env)).map((p) => p.pane_id), ['w1:p1'], 'popups were never panes');
});
