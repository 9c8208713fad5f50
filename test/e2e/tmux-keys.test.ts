// E2E for a ten-year tmux user (issue 30 items 1, 6, 7): borders that drag as tmux's do, tmux's words at prefix :, tmux's keys.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tempEnvFor } from '../support/temp-env.js';
import { KEY, listPanes, startAttached, waitForPane } from '../support/term-harness.js';
import { waitFor } from '../support/wait-for.js';

/** An SGR mouse report as a terminal would send it (1-based coordinates). */
const mouse = (b: number, x: number, y: number, release = false) => `\x1b[<${b};${x + 1};${y + 1}${release ? 'm' : 'M'}`;
const cols = async (env: Parameters<typeof listPanes>[0]) => Object.fromEntries((await listPanes(env)).map((p) => [p.pane_id, p.cols]));

test('item 1: in [p1|p3|p2] dragging the outer border moves it (not the inner one); prefix C-Left on p3 moves p3|p2 as tmux does', async (t) => {
  const env = tempEnvFor(t);
  const h = await startAttached(env, { cols: 120, rows: 24 });
  h.prefix('%');
  await waitForPane(env, 'w1:p2', (p) => p.focused);
  h.prefix(KEY.left);
  await waitForPane(env, 'w1:p1', (p) => p.focused);
  h.prefix('%');
  await waitForPane(env, 'w1:p3', (p) => p.focused);
  const p2 = await h.waitForFrame('p2', { where: (f) => f.x >= 60 });
  const before = await cols(env);
  // press on p2's left border (the outer split), drag 10 columns left, release
  const edge = p2.x;
  h.write(mouse(0, edge, 5) + mouse(32, edge - 5, 5) + mouse(32, edge - 10, 5) + mouse(0, edge - 10, 5, true));
  await waitFor(async () => (await cols(env))['w1:p2'] === before['w1:p2'] + 10, { message: 'p2 is 10 columns wider', observe: async () => JSON.stringify(await cols(env)) });
  const after = await cols(env);
  assert.equal(after['w1:p1'], before['w1:p1'], 'p1, away from the dragged border, keeps its width');
  assert.equal(after['w1:p3'], before['w1:p3'] - 10, 'p3 gave the space');
  // keyboard: resize-pane -L on the middle pane moves its right border (tmux), not p1|p3
  h.prefix('\x1b[1;5D'); // C-Left
  await waitFor(async () => (await cols(env))['w1:p2'] === after['w1:p2'] + 1, { message: 'p2 one wider after prefix C-Left on p3', observe: async () => JSON.stringify(await cols(env)) });
  assert.equal((await cols(env))['w1:p1'], before['w1:p1']);
});
