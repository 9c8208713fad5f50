// E2E (issue 13): preset layouts through the real bin: prefix Space cycles, the CLI selects one, the screen follows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tempEnvFor } from '../support/temp-env.js';
import { listPanes, PROMPT_RE, startAttached } from '../support/term-harness.js';
import { waitFor } from '../support/wait-for.js';

test('window layout: CLI presets and prefix Space rearrange the panes on screen and their ptys', async (t) => {
  const env = tempEnvFor(t);
  const h = await startAttached(env, { cols: 120, rows: 31 });
  h.prefix('%');
  await h.waitForFrame('p2');
  h.prefix('"');
  await h.waitForFrame('p3');
  h.prefix('%');
  const p4 = await h.waitForFrame('p4');
  await h.waitForText(PROMPT_RE, { region: p4.inner });

  const r = await env.cli(['window', 'layout', 'even-vertical']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.trim(), 'w1 even-vertical');
  // Four panes stacked, full width, 30 rows shared: 7 or 8 rows each, borders included.
  for (const label of ['p1', 'p2', 'p3', 'p4']) await h.waitForFrame(label, { where: (f) => f.x === 0 && f.w === 120 && f.h >= 7 && f.h <= 8, message: `${label} full width` });
  await waitFor(async () => (await listPanes(env)).every((p) => p.cols === 118), { message: 'every pty is 118 columns wide' });

  h.prefix(' '); // the next preset after even-vertical: main-horizontal
  await h.waitForFrame('p1', { where: (f) => f.y === 0 && f.w === 120 && f.h === 18, message: 'p1 on top, 60% of 30 rows' });
  for (const label of ['p2', 'p3', 'p4']) await h.waitForFrame(label, { where: (f) => f.y === 18 && f.h === 12, message: `${label} below` });

  const bad = await env.cli(['window', 'layout', 'spiral']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /expected one of even-horizontal, even-vertical, main-horizontal, main-vertical, tiled, next, prev/);
  const tiled = await env.cli(['window', 'layout', 'tiled', '--json']);
  assert.deepEqual(JSON.parse(tiled.stdout), { window_id: 'w1', layout: 'tiled' });
  await h.waitForFrame('p4', { where: (f) => f.x === 60 && f.y === 15 && f.w === 60 && f.h === 15, message: 'p4 bottom right in a 2x2 grid' });
});
