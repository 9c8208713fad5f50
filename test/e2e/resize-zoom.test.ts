// E2E: resizing the outer terminal re-lays out the panes and resizes their ptys; prefix z zooms a pane to the whole window.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tempEnvFor } from '../support/temp-env.js';
import { waitFor } from '../support/wait-for.js';
import { listPanes, type PaneFrameBox, PROMPT_RE, startAttached, type TermHarness, waitForPane } from '../support/term-harness.js';

/** Runs `stty size` in the focused pane and waits for "ROWS COLS" (tagged, so the command line itself never matches). */
async function sttySize(h: TermHarness, f: PaneFrameBox, tag: string): Promise<[number, number]> {
  h.write(`echo ${tag}-$(stty size | tr ' ' x)\r`);
  const m = await h.waitForText(new RegExp(`${tag}-\\d+x\\d+`), { region: f.inner, message: `stty size output in ${f.label}` });
  const [, rows, cols] = /-(\d+)x(\d+)/.exec(m.text)!;
  return [Number(rows), Number(cols)];
}

test('resizing the outer terminal moves the borders and resizes every pane pty', async (t) => {
  const env = tempEnvFor(t);
  const h = await startAttached(env, { cols: 80, rows: 24 });
  const one = (await h.frames())[0];
  assert.deepEqual(await sttySize(h, one, 'A'), [21, 78], 'one pane in 80x24: 78x21 inside the border');

  h.prefix('%');
  const p2 = await h.waitForFrame('p2');
  assert.equal(p2.x + p2.w, 80);
  await h.waitForText(PROMPT_RE, { region: p2.inner });

  h.resize(120, 30);
  const wideP2 = await h.waitForFrame('p2', { where: (f) => f.x + f.w === 120 && f.h === 29, message: 'p2 re-laid out for 120x30' });
  const wideP1 = await h.waitForFrame('p1', { where: (f) => f.h === 29 });
  assert.equal(wideP1.x + wideP1.w, wideP2.x, 'p1 and p2 still touch');
  assert.ok(wideP2.x > p2.x, `the split border moved right (${p2.x} -> ${wideP2.x})`);
  await h.waitForText(/(^| )1:(?:tsh|bash)\*/, { region: { top: 29, bottom: 30 }, message: 'the bar is on the new last row' });
  assert.deepEqual(await sttySize(h, wideP2, 'B'), [27, wideP2.w - 2], 'the focused pane pty got its new inner size');
  const panes = await listPanes(env);
  assert.deepEqual(
    panes.map((p) => [p.pane_id, p.cols, p.rows]),
    [
      ['w1:p1', wideP1.w - 2, 27],
      ['w1:p2', wideP2.w - 2, 27],
    ],
    'pane.list reports the inner sizes drawn on screen',
  );

  h.resize(60, 16);
  const smallP2 = await h.waitForFrame('p2', { where: (f) => f.x + f.w === 60 && f.h === 15, message: 'p2 re-laid out for 60x16' });
  const lines = await h.regionText({ right: 60 });
  assert.match(lines[0], /^╭ w1:p1 [^╮]*╮╭ w1:p2 [^╮]*╮$/, 'the top borders fit the new width exactly');
  assert.match(lines[14], /^╰─+╯╰─+╯$/, 'the bottom borders sit right above the bar');
  await h.waitForText(/(^| )1:(?:tsh|bash)\*/, { region: { top: 15, bottom: 16 } });
  assert.deepEqual(await sttySize(h, smallP2, 'C'), [13, smallP2.w - 2]);
  await waitForPane(env, 'w1:p1', (p) => p.cols === smallP2.x - 2 && p.rows === 13, { message: 'p1 pty shrank too' });
});

test('prefix z zooms the focused pane to the whole window and back; the pty follows', async (t) => {
  const env = tempEnvFor(t);
  const h = await startAttached(env, { cols: 100, rows: 30 });
  h.prefix('%');
  const p2 = await h.waitForFrame('p2');
  await h.waitForText(PROMPT_RE, { region: p2.inner });
  h.write('echo ZOOMME-$((7*6))\r');
  await h.waitForText('ZOOMME-42', { region: p2.inner });

  h.prefix('z');
  const zoomed = await h.waitForFrame('p2', { where: (f) => f.x === 0 && f.w === 100 && f.h === 29, message: 'p2 fills the window' });
  assert.equal((await h.frames()).length, 1, 'only the zoomed pane is drawn');
  await h.waitForText('ZOOMME-42', { region: zoomed.inner });
  await waitForPane(env, 'w1:p2', (p) => p.cols === 98 && p.rows === 27, { message: 'the zoomed pane pty is full size' });
  const windows = await env.call<{ windows: Array<{ zoomed: boolean }> }>('window.list', {});
  assert.equal(windows.windows[0].zoomed, true, 'window.list says zoomed');
  assert.deepEqual(await sttySize(h, zoomed, 'Z'), [27, 98]);

  h.prefix('z');
  const back = await h.waitForFrame('p2', { where: (f) => f.w < 100, message: 'unzoomed: p2 back to its half' });
  assert.deepEqual({ x: back.x, w: back.w, h: back.h }, { x: p2.x, w: p2.w, h: p2.h });
  await h.waitForFrame('p1');
  await waitForPane(env, 'w1:p2', (p) => p.cols === p2.w - 2 && p.rows === 27, { message: 'the pty is back to its split size' });

  // Resizing while zoomed: the zoomed pane follows the terminal; the hidden one gets its share of the new size.
  h.prefix('z');
  await h.waitForFrame('p2', { where: (f) => f.w === 100 });
  h.resize(120, 34);
  const big = await h.waitForFrame('p2', { where: (f) => f.w === 120 && f.h === 33, message: 'the zoomed pane fills the resized terminal' });
  await h.waitForText('ZOOMME-42', { region: big.inner });
  await waitForPane(env, 'w1:p2', (p) => p.cols === 118 && p.rows === 31, { message: 'zoomed pty resized' });
  await waitForPane(env, 'w1:p1', (p) => p.cols === 58 && p.rows === 31, { message: 'the hidden pane gets its unzoomed share of the new size' });
  h.prefix('z');
  const half = await h.waitForFrame('p2', { where: (f) => f.w === 60 && f.x === 60, message: 'unzoomed at the new size' });
  await h.waitForText('ZOOMME-42', { region: half.inner });
});

test('the bar or the border shows that a pane is zoomed', async (t) => {
  const env = tempEnvFor(t);
  const h = await startAttached(env, { cols: 100, rows: 30 });
  h.prefix('%');
  await h.waitForFrame('p2');
  const before = await h.screenText();
  h.prefix('z');
  await h.waitForFrame('p2', { where: (f) => f.w === 100 });
  // tmux marks the window tab `*Z`; any "Z" flag on the tab or the word zoom on the bar or border will do.
  await h.waitForScreen((l) => /\d:\S*\*Z|zoom/i.test(l[29]) || /zoom/i.test(l[0]), { timeoutMs: 1000, message: `a zoom indicator (bar before: ${before[29]})` });
});

test('a terminal too small for the borders: the chrome of panes under 2x2 comes from Ink (loaded for it), and the borders come back by hand', async (t) => {
  const env = tempEnvFor(t);
  const h = await startAttached(env, { cols: 60, rows: 16 });
  h.prefix('"');
  await h.waitForFrame('p2', { where: (f) => f.x === 0 && f.y > 0, message: 'p2 below p1' });
  // Two panes stacked in a window area of 2 rows: each is 1 row high, under 2x2, so only Ink draws the chrome (the
  // bar too: until Ink is in there is none).
  h.resize(60, 3);
  // Ink is loaded on this first need (a cold import of ~1-2 s of CPU): on a loaded machine that takes past 5 s.
  await h.waitForText(/(^| )1:(?:tsh|bash)\*/, { region: { top: 2, bottom: 3 }, timeoutMs: 20_000, message: 'the bar on the last row of a 3-row terminal' });
  // The lower pane's one row inside lies past the window area, on the bar's row: what it prints later (its only row:
  // ZZTOP and the prompt) is not drawn there. A CI run saw its prompt, redrawn after the resize, cover the bar for good.
  await env.call('pane.send_text', { pane_id: 'w1:p2', text: "printf 'ZZ%s' TOP", enter: true });
  await waitFor(async () => (await env.call<{ text: string }>('pane.read', { pane_id: 'w1:p2' })).text.includes('ZZTOP'), { message: 'p2 printed' });
  for (const until = Date.now() + 1000; Date.now() < until; await new Promise((r) => setTimeout(r, 50))) {
    const last = (await h.screenText())[2];
    assert.match(last, /(^| )1:(?:tsh|bash)\*/, `the bar stays on the last row (it reads ${JSON.stringify(last)})`);
  }
  h.resize(60, 16);
  await h.waitForFrame('p1', { where: (f) => f.y === 0 && f.w === 60, message: 'p1 framed again' });
  await h.waitForFrame('p2', { where: (f) => f.y > 0 && f.y + f.h === 15, message: 'p2 framed again, right above the bar' });
});
