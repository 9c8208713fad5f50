// E2E: windows (prefix c, n, p, digits) and closing a pane with prefix x and a y/n confirmation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pidAlive, tempEnvFor } from '../support/temp-env.js';
import { listPanes, PROMPT_RE, startAttached, waitForPane } from '../support/term-harness.js';
import { waitFor } from '../support/wait-for.js';

const BAR = { top: 23, bottom: 24 };

test('prefix c opens a window; prefix n, p and digits switch between windows', async (t) => {
  const env = tempEnvFor(t);
  const h = await startAttached(env, { cols: 80, rows: 24 });
  h.write('echo IN-ONE-$((1*1))\r');
  await h.waitForText('IN-ONE-1');

  h.prefix('c');
  await h.waitForText(/ 1:(?:tsh|bash)  2:(?:tsh|bash)\*/, { region: BAR, message: 'two tabs, the second current' });
  await h.waitForNoText('IN-ONE-1', { message: 'window 1 content is no longer drawn' });
  const panes = await listPanes(env);
  assert.equal(panes.length, 2);
  const fresh = panes.find((p) => p.window_id !== 'w1')!;
  assert.ok(fresh, 'a pane in a new window');
  assert.equal(fresh.active, true);
  const label = fresh.pane_id.split(':')[1];
  const f = await h.waitForFrame(label);
  assert.deepEqual({ x: f.x, y: f.y, w: f.w, h: f.h }, { x: 0, y: 0, w: 80, h: 23 }, 'the new window has one full-size pane');
  await h.waitForText(PROMPT_RE, { region: f.inner });
  h.write('echo IN-TWO-$((1+1))\r');
  await h.waitForText('IN-TWO-2', { region: f.inner });

  h.prefix('n');
  await h.waitForText(/ 1:(?:tsh|bash)\* +2:(?:tsh|bash)\b/, { region: BAR, message: 'prefix n wraps to window 1' });
  await h.waitForText('IN-ONE-1');
  await h.waitForNoText('IN-TWO-2');

  h.prefix('2');
  await h.waitForText(/ 2:(?:tsh|bash)\*/, { region: BAR, message: 'prefix 2 selects window 2' });
  await h.waitForText('IN-TWO-2');
  await h.waitForNoText('IN-ONE-1');

  h.prefix('1');
  await h.waitForText(/ 1:(?:tsh|bash)\*/, { region: BAR, message: 'prefix 1 selects window 1' });
  await h.waitForText('IN-ONE-1');

  h.prefix('p');
  await h.waitForText(/ 2:(?:tsh|bash)\*/, { region: BAR, message: 'prefix p wraps back to window 2' });
  await h.waitForText('IN-TWO-2');

  // Typing goes to the window on screen.
  h.write('echo STILL-TWO-$((2+2))\r');
  await h.waitForText('STILL-TWO-4', { region: f.inner });
  const two = await env.call<{ lines: string[] }>('pane.read', { pane_id: fresh.pane_id });
  assert.ok(two.lines.includes('STILL-TWO-4'), 'the text reached the pane of window 2');
});

test('prefix x asks before closing the pane: n keeps it, y closes it and its sibling takes the space', async (t) => {
  const env = tempEnvFor(t);
  const h = await startAttached(env, { cols: 80, rows: 24 });
  h.prefix('%');
  const p2 = await h.waitForFrame('p2');
  await h.waitForText(PROMPT_RE, { region: p2.inner });
  const pid = (await listPanes(env)).find((p) => p.pane_id === 'w1:p2')?.pid;
  assert.ok(pid, 'p2 has a process');

  h.prefix('x');
  await h.waitForText('close pane w1:p2? (y/n)', { region: BAR });
  h.write('n');
  await h.waitForNoText('(y/n)', { region: BAR, message: 'n dismisses the question' });
  assert.equal((await listPanes(env)).length, 2, 'n keeps the pane');
  await h.waitForFrame('p2');

  h.prefix('x');
  await h.waitForText('close pane w1:p2? (y/n)', { region: BAR });
  h.write('y');
  await h.waitForFrame('p1', { where: (f) => f.w === 80, message: 'p1 takes the whole width' });
  assert.equal((await h.frames()).length, 1, 'p2 is gone from the screen');
  await waitFor(async () => (await listPanes(env)).length === 1, { message: 'pane.list without p2' });
  await waitForPane(env, 'w1:p1', (p) => p.active && p.cols === 78, { message: 'p1 focused and resized to the full width' });
  await waitFor(() => !pidAlive(pid), { timeoutMs: 4000, message: `p2's shell (pid ${pid}) ends` });
  h.write('echo ALIVE-$((3*3))\r');
  await h.waitForText('ALIVE-9', { message: 'typing goes to the remaining pane' });
});

test('closing the last pane of a window removes the window', async (t) => {
  const env = tempEnvFor(t);
  const h = await startAttached(env, { cols: 80, rows: 24 });
  h.prefix('c');
  await h.waitForText(/ 2:(?:tsh|bash)\*/, { region: BAR });
  h.prefix('x');
  await h.waitForText(/close pane w2:p\d+\? \(y\/n\)/, { region: BAR });
  h.write('y');
  await h.waitForText(/ 1:(?:tsh|bash)\*/, { region: BAR, message: 'back in window 1' });
  await h.waitForNoText(/ 2:/, { region: BAR, message: 'window 2 is gone from the bar' });
  const w = await env.call<{ windows: unknown[] }>('window.list', {});
  assert.equal(w.windows.length, 1);
});

test("a program's title (OSC 2) labels its border and names the window; prefix , and prefix P rename", async (t) => {
  const env = tempEnvFor(t);
  const h = await startAttached(env, { cols: 80, rows: 24 });
  h.write("printf '\\033]2;%s\\007' WORK-$((6*7))\r");
  await h.waitForText(/^╭ w1:p1 WORK-42 ─/, { region: { top: 0, bottom: 1 }, message: 'the title on the top border' });
  await h.waitForText(/ 1:WORK-42\*/, { region: BAR, message: 'the title names the window' });

  h.prefix(',');
  await h.waitForText('rename window 1: WORK-42', { region: BAR, message: 'the rename prompt, prefilled' });
  h.write('\x15logs\r'); // C-u clears the prefilled name
  await h.waitForText(/ 1:logs\*/, { region: BAR, message: 'the window has its new name' });
  assert.equal((await env.call<{ windows: Array<{ name: string }> }>('window.list', {})).windows[0].name, 'logs');

  h.prefix('P');
  await h.waitForText('rename pane w1:p1:', { region: BAR });
  h.write('\x15builder\r');
  await h.waitForText(/^╭ w1:p1 builder ─/, { region: { top: 0, bottom: 1 }, message: 'the pane name on the border' });
  await waitForPane(env, 'w1:p1', (p) => p.title === 'builder');
  await h.waitForText(/ 1:logs\*/, { region: BAR, message: 'a window name set by hand stays' });

  h.prefix(',');
  await h.waitForText('rename window 1:', { region: BAR });
  h.write('\x1b');
  await h.waitForNoText('rename window', { region: BAR, message: 'Escape cancels the prompt' });
  await h.waitForText(/ 1:logs\*/, { region: BAR });
});
