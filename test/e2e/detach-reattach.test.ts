// E2E: prefix d detaches (the server and panes keep running); a new `castellan` reattaches to the same panes and output.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tempEnvFor } from '../support/temp-env.js';
import { waitFor } from '../support/wait-for.js';
import { listPanes, looksAttached, PROMPT_RE, readPane, startAttached, TermHarness, waitForPane } from '../support/term-harness.js';

/** pane.read's screen lines (trailing blank rows dropped) padded to the height of a region. */
const padRows = (lines: string[], r: { top: number; bottom: number }) => [...lines, ...Array<string>(r.bottom - r.top).fill('')].slice(0, r.bottom - r.top);

test('detach keeps the server; reattaching shows the same panes, screen and scrollback', async (t) => {
  const env = tempEnvFor(t);
  const h = await startAttached(env, { cols: 90, rows: 26 });
  h.write('seq 1 200\r');
  await h.waitForScreen((l) => l.some((x) => x.startsWith('│200 ')) && l.some((x) => x.startsWith('│$ ')), { message: 'seq output and a new prompt' });
  h.prefix('%');
  const p2 = await h.waitForFrame('p2');
  await h.waitForText(PROMPT_RE, { region: p2.inner });
  h.write('echo RIGHT-$((40+2))\r');
  await h.waitForText('RIGHT-42', { region: p2.inner });
  const panesBefore = await listPanes(env);
  const framesBefore = await h.frames();
  // p1's region once the client shows what the server holds (not the bar: a notice could come and go).
  const p1Inner = framesBefore[0].inner;
  const regionsBefore = [
    await waitFor(
      async () => {
        const want = padRows(await readPane(env, 'w1:p1'), p1Inner);
        const got = await h.regionText(p1Inner);
        return JSON.stringify(got) === JSON.stringify(want) ? got : undefined;
      },
      { message: 'p1 drawn as the server has it', observe: () => h.describe() },
    ),
  ];
  const serverPid = await env.serverPid();
  assert.ok(serverPid, 'the server answers ping');

  h.prefix('d');
  const exit = await h.waitForExit(5000);
  assert.equal(exit.exitCode, 0, 'detaching exits 0');
  assert.equal(await h.bufferType(), 'normal', 'the outer terminal is back on the normal screen');
  await h.waitForText(/\[detached/, { message: '[detached ...] message after leaving' });
  assert.doesNotMatch(h.output.slice(h.output.lastIndexOf('\x1b[?1049l')), /\x1b\[\?1049h/, 'alternate screen left for good');

  const status = await env.cli(['server', 'status']);
  assert.equal(status.code, 0, `server status after detach: ${status.stdout}${status.stderr}`);
  assert.match(status.stdout, /server running/);
  assert.equal(await env.serverPid(), serverPid, 'the same server process is still running');
  const afterDetach = await listPanes(env);
  assert.deepEqual(afterDetach.map((p) => [p.pane_id, p.pid]), panesBefore.map((p) => [p.pane_id, p.pid]), 'the panes and their programs survive the detach');
  assert.ok(afterDetach.every((p) => !p.exited));
  // Work goes on with nobody attached: typed through the API now, seen after reattaching.
  await env.call('pane.send_text', { pane_id: 'w1:p2', text: 'clear; echo DETACHED-$((9*9))', enter: true });
  await waitFor(
    async () => {
      const l = await readPane(env, 'w1:p2');
      return l[0] === 'DETACHED-81' && PROMPT_RE.test(l[1] ?? '');
    },
    { message: 'p2 ran the command while detached and is back at its prompt' },
  );

  const h2 = TermHarness.start(env, { cols: 90, rows: 26 });
  await h2.waitForScreen((l) => looksAttached(l), { message: 'reattached screen' });
  const framesAfter = await h2.waitForScreen(() => {
    const f = h2.framesNow();
    return f.length === 2 ? f : undefined;
  });
  assert.deepEqual(
    framesAfter.map(({ label, x, y, w, h }) => ({ label, x, y, w, h })),
    framesBefore.map(({ label, x, y, w, h }) => ({ label, x, y, w, h })),
    'the same layout',
  );
  // p1 was left alone: exactly what it showed before. p2 ran a command meanwhile: exactly what the server's screen holds.
  const p2Want = padRows(await readPane(env, 'w1:p2', { source: 'screen' }), framesAfter[1].inner);
  const regionsAfter = await h2.waitForScreen(
    () => {
      const r = framesAfter.map((f) => h2.regionNow(f.inner));
      return JSON.stringify(r) === JSON.stringify([regionsBefore[0], p2Want]) ? r : undefined;
    },
    { message: `p1 as before the detach, p2 as the server has it:\n${JSON.stringify([regionsBefore[0], p2Want])}` },
  );
  assert.ok(regionsAfter[0].some((l) => l === '200'), 'p1 still shows the tail of seq');
  assert.deepEqual(regionsAfter[1].slice(0, 2), ['DETACHED-81', '$'], 'p2 shows what it printed while detached');
  await h2.waitForCursor(framesAfter[1].inner.left + 2, framesAfter[1].inner.top + 1, { message: 'the cursor is on p2\'s prompt' });

  // History the screen no longer shows is still in the pane's scrollback.
  const back = await readPane(env, 'w1:p1', { source: 'scrollback', lines: 1000 });
  const i1 = back.indexOf('1');
  const i200 = back.indexOf('200');
  assert.ok(i1 >= 0 && i200 > i1, `scrollback holds line 1 and line 200 in order:\n${back.join('\n')}`);
  assert.deepEqual(back.slice(i1, i200 + 1), Array.from({ length: 200 }, (_, i) => String(i + 1)), 'every seq line is in scrollback');
  const screenOnly = await readPane(env, 'w1:p1', { source: 'screen' });
  assert.ok(!screenOnly.includes('1'), 'line 1 has scrolled off the visible screen (so the check above really used scrollback)');

  // The reattached client is live: typing still reaches the pane.
  h2.write('echo BACK-$((2*3))\r');
  await h2.waitForText('BACK-6', { region: framesAfter[1].inner });
});

test('a second, smaller client shares the panes; the window takes the smaller size until it detaches', async (t) => {
  const env = tempEnvFor(t);
  const a = await startAttached(env, { cols: 80, rows: 24 });
  const b = TermHarness.start(env, { cols: 60, rows: 18 });
  await b.waitForScreen((l) => looksAttached(l), { message: 'second client attached' });
  const small = await a.waitForFrame('p1', { where: (f) => f.w === 60 && f.h === 17, message: 'the big client shows the window at the small client\'s size' });
  await a.waitForText('····', { region: { left: 60 }, message: 'the unused part of the big client is filled, as tmux does' });
  await waitForPane(env, 'w1:p1', (p) => p.cols === 58 && p.rows === 15, { message: 'the pane pty fits the smaller client' });
  a.write('echo SHARED-$((5*5))\r');
  await a.waitForText('SHARED-25', { region: small.inner });
  await b.waitForText('SHARED-25', { message: 'output shows on the other client too' });
  b.write('echo FROM-B-$((3+4))\r');
  await a.waitForText('FROM-B-7', { region: small.inner, message: 'typing on either client reaches the same pane' });

  b.prefix('d');
  assert.equal((await b.waitForExit()).exitCode, 0);
  await a.waitForFrame('p1', { where: (f) => f.w === 80 && f.h === 23, message: 'the window grows back to the remaining client' });
  await a.waitForNoText('····');
  await waitForPane(env, 'w1:p1', (p) => p.cols === 78 && p.rows === 21, { message: 'the pane pty grows back' });
  a.write('echo STILL-$((1+1))\r');
  await a.waitForText('STILL-2', { message: 'the first client keeps working after the second detached' });
});
