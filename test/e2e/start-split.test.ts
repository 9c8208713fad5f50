// E2E: `castellan` in a real pty opens full screen with a shell pane; prefix splits and focus keys route typing to the right pane.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tempEnvFor } from '../support/temp-env.js';
import { KEY, listPanes, type PaneFrameBox, PROMPT_RE, startAttached, type TermHarness, waitForPane } from '../support/term-harness.js';

const inside = (f: PaneFrameBox, m: { x: number; y: number }) => m.x >= f.inner.left && m.x < f.inner.right && m.y >= f.inner.top && m.y < f.inner.bottom;

/** `text` shows up in pane `f`'s region and nowhere else on the screen. */
async function seenOnlyIn(h: TermHarness, text: string, f: PaneFrameBox): Promise<void> {
  await h.waitForText(text, { region: f.inner, message: `${text} inside ${f.label}` });
  const all = await h.find(text);
  assert.ok(all.length > 0 && all.every((m) => inside(f, m)), `${text} only inside ${f.label} ${JSON.stringify(f.inner)}; found at ${JSON.stringify(all)}\n${h.describe()}`);
}

test('castellan opens full screen with one bordered pane running the shell and the bar', async (t) => {
  const env = tempEnvFor(t);
  const h = await startAttached(env, { cols: 80, rows: 24 });
  assert.equal(await h.bufferType(), 'alternate', 'castellan draws on the alternate screen');
  const lines = await h.screenText();
  assert.match(lines[0], /^╭ w1:p1 (?:tsh|bash) ─.*╮$/, 'top border with the pane label (and maybe a badge), across the full width');
  assert.equal([...lines[0]].length, 80);
  for (let y = 1; y < 22; y++) assert.match(lines[y], /^│.{78}│$/u, `row ${y} is inside the border`);
  assert.match(lines[22], /^╰─{78}╯$/, 'bottom border on the row above the bar');
  assert.match(lines[23], /(^| )1:(?:tsh|bash)\* /, 'bar with the current window tab');
  assert.equal(lines[1].slice(0, 3), '│$ ', 'the shell prompt is inside the border');
  await h.waitForCursor(3, 1, { message: 'cursor after the prompt' });

  h.write('echo "id=$CASTELLAN_PANE_ID env=$CASTELLAN_ENV"\r');
  const f = (await h.frames())[0];
  await h.waitForText('id=w1:p1 env=1', { region: f.inner });

  const panes = await listPanes(env);
  assert.equal(panes.length, 1);
  assert.equal(panes[0].pane_id, 'w1:p1');
  assert.deepEqual([panes[0].cols, panes[0].rows], [78, 21], 'pty size is the inside of the border (80x23 window area)');
  assert.equal(panes[0].focused, true);
});

test('prefix % and prefix " split; typing goes to the focused pane (prefix o, prefix arrows)', async (t) => {
  const env = tempEnvFor(t);
  const h = await startAttached(env, { cols: 100, rows: 30 });

  h.prefix('%');
  const p2 = await h.waitForFrame('p2');
  const p1 = await h.waitForFrame('p1', { where: (f) => f.w < 100 });
  assert.equal(p1.x, 0);
  assert.equal(p2.x, p1.x + p1.w, 'p2 sits right of p1');
  assert.equal(p2.x + p2.w, 100, 'the two panes fill the width');
  assert.equal(p2.h, 29, 'a right split keeps the full height');
  await h.waitForText(PROMPT_RE, { region: p2.inner, message: 'shell prompt in p2' });

  h.prefix('"');
  const p3 = await h.waitForFrame('p3');
  const top = await h.waitForFrame('p2', { where: (f) => f.h < 29 });
  assert.deepEqual([p3.x, p3.w], [top.x, top.w], 'p3 is below p2, same columns');
  assert.equal(p3.y, top.y + top.h, 'p3 starts under p2');
  assert.equal(p3.y + p3.h, 29, 'p3 reaches the bar');
  await h.waitForText(PROMPT_RE, { region: p3.inner, message: 'shell prompt in p3' });
  await waitForPane(env, 'w1:p3', (p) => p.active, { message: 'the new pane has focus' });

  // Arithmetic in the command, so the echoed command line never contains the expected output.
  h.write('echo THREE-$((1+2))\r');
  await seenOnlyIn(h, 'THREE-3', p3);

  h.prefix(KEY.left);
  await waitForPane(env, 'w1:p1', (p) => p.active, { message: 'prefix Left focuses p1' });
  h.write('echo ONE-$((0+1))\r');
  await seenOnlyIn(h, 'ONE-1', p1);

  // The prefix key and the typing in one burst, as a fast typist (or a paste of keys) sends them.
  h.write(`${KEY.prefix}oecho TWO-$((1+1))\r`);
  await seenOnlyIn(h, 'TWO-2', top);
  await waitForPane(env, 'w1:p2', (p) => p.active, { message: 'prefix o from p1 focuses p2' });

  h.prefix(KEY.down);
  await waitForPane(env, 'w1:p3', (p) => p.active, { message: 'prefix Down from p2 focuses p3' });
  h.write('echo AGAIN-$((3+3))\r');
  await seenOnlyIn(h, 'AGAIN-6', p3);

  h.prefix(KEY.up);
  await waitForPane(env, 'w1:p2', (p) => p.active, { message: 'prefix Up from p3 focuses p2' });

  // Every pane's pty has the size of the inside of its border.
  const panes = await listPanes(env);
  const size = (id: string) => panes.find((p) => p.pane_id === id)!;
  assert.deepEqual([size('w1:p1').cols, size('w1:p1').rows], [p1.w - 2, p1.h - 2]);
  assert.deepEqual([size('w1:p2').cols, size('w1:p2').rows], [top.w - 2, top.h - 2]);
  assert.deepEqual([size('w1:p3').cols, size('w1:p3').rows], [p3.w - 2, p3.h - 2]);
});
