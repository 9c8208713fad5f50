// E2E for living in castellan: copy mode + OSC 52, mouse focus and wheel, two clients, live themes, user keys, named sessions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadTheme } from '../../src/config/themes.js';
import { tempEnvFor } from '../support/temp-env.js';
import { KEY, listPanes, startAttached, waitForPane } from '../support/term-harness.js';
import { waitFor } from '../support/wait-for.js';

/** An SGR mouse report as a terminal would send it (1-based coordinates). */
const mouse = (b: number, x: number, y: number, release = false) => `\x1b[<${b};${x + 1};${y + 1}${release ? 'm' : 'M'}`;

test('copy mode: search finds a line in scrollback; copying emits OSC 52 and fills the paste buffer', async (t) => {
  const env = tempEnvFor(t);
  const h = await startAttached(env, { cols: 80, rows: 24 });
  h.write('seq 1 300\r');
  await h.waitForText(/^│300 /m, { message: 'seq finished' });
  h.prefix('[');
  await h.waitForText(/\[0\/\d+\]/, { message: 'copy mode indicator' });
  h.write('/150\r');
  await h.waitForText(/^│150 /m, { message: 'search scrolled to 150' });
  assert.doesNotMatch((await h.screenText()).join('\n'), /^│300 /m, 'the view moved back into history');
  h.write('V');
  // y copies and ends copy mode; what is typed at once after it (the client still believes it is in copy mode until
  // the next frame) reaches the shell, as in tmux
  h.write('yecho got ');
  const b64 = Buffer.from('150').toString('base64');
  await waitFor(() => h.output.includes(`\x1b]52;c;${b64}\x07`), { message: 'OSC 52 with the copied line', observe: () => JSON.stringify(h.output.slice(-300)) });
  await h.waitForText(/copied 3 characters/);
  // copy mode ended: new output shows at the bottom again, and prefix ] pastes the buffer
  h.prefix(']');
  h.write('\r');
  await h.waitForText(/^│got 150 /m, { message: 'pasted buffer' });
});

test('copy mode does not follow new output while scrolled back', async (t) => {
  const env = tempEnvFor(t);
  const h = await startAttached(env, { cols: 60, rows: 16 });
  h.write('for i in $(seq 1 40); do echo line$i; done; sleep 0.3; echo LA""TE\r');
  await h.waitForText(/^│line40 /m);
  h.prefix('[');
  h.write('g');
  await h.waitForText(/^│\$ for i in/m, { message: 'top of history' });
  await waitFor(async () => (await env.call<{ text: string }>('pane.read', { pane_id: 'w1:p1' })).text.includes('LATE'), { message: 'LATE printed' });
  const screen = (await h.screenText()).join('\n');
  assert.doesNotMatch(screen, /LATE/, 'the copy view stayed where it was');
  h.write('q');
  await h.waitForText(/^│LATE /m, { message: 'leaving copy mode shows the live screen' });
});

test('mouse: a click focuses the clicked pane; the wheel scrolls a shell into copy mode', async (t) => {
  const env = tempEnvFor(t);
  const h = await startAttached(env, { cols: 100, rows: 24 });
  h.prefix('%');
  await waitForPane(env, 'w1:p2', (p) => p.focused);
  const frames = await h.frames();
  const left = frames.find((f) => f.label.startsWith('p1'))!;
  h.write(mouse(0, left.inner.left + 2, left.inner.top + 2) + mouse(0, left.inner.left + 2, left.inner.top + 2, true));
  await waitForPane(env, 'w1:p1', (p) => p.focused, { message: 'click focused the left pane' });
  h.write('seq 1 100\r');
  await h.waitForText(/^│100 /m);
  h.write(mouse(64, left.inner.left + 2, left.inner.top + 2));
  await h.waitForText(/\[3\/\d+\]/, { message: 'wheel up entered copy mode 3 lines back' });
  h.write(mouse(65, left.inner.left + 2, left.inner.top + 2));
  await h.waitForNoText(/\[\d+\/\d+\]/, { message: 'wheel down back at the bottom leaves copy mode' });
});

test('two clients on one server see the same output; one killed with -9 leaves the other working', async (t) => {
  const env = tempEnvFor(t);
  const a = await startAttached(env, { cols: 90, rows: 24 });
  const b = await startAttached(env, { cols: 70, rows: 20 });
  a.write('echo from-a-$((1+1))\r');
  await a.waitForText('from-a-2');
  await b.waitForText('from-a-2', { message: 'the second client sees the first one\'s output' });
  // the smaller client wins for the shared window
  await waitFor(async () => (await listPanes(env))[0].cols === 68, { message: 'window sized to the smaller client' });
  process.kill(b.proc.pid, 'SIGKILL');
  await b.waitForExit();
  await waitFor(async () => (await listPanes(env))[0].cols === 88, { message: 'window grows back when the small client dies' });
  a.write('echo still-$((2+2))\r');
  await a.waitForText('still-4', { message: 'the surviving client works' });
  assert.equal((await env.cli(['server', 'status'])).code, 0);
});

test('a theme switch repaints the chrome with the new colours', async (t) => {
  const env = tempEnvFor(t);
  const h = await startAttached(env, { cols: 80, rows: 24, env: { COLORTERM: 'truecolor' } });
  const hex = (c: string) => parseInt(c.slice(1), 16);
  const focusedFg = (name: string) => loadTheme(name, {}).theme.roles['pane.border.focused'].fg!;
  const corner = async () => h.cellAt(0, 0);
  await waitFor(async () => (await corner()).fg === hex(focusedFg('default')), { message: 'default focused border colour', observe: async () => JSON.stringify(await corner()) });
  assert.equal((await corner()).fgMode, 'rgb');
  const r = await env.cli(['theme', 'set', 'light']);
  assert.equal(r.code, 0, r.stderr);
  await waitFor(async () => (await corner()).fg === hex(focusedFg('light')), { message: 'light theme border colour', observe: async () => JSON.stringify(await corner()) });
  h.prefix('T');
  await h.waitForText(/theme: /, { message: 'prefix T switches theme with a notice' });
  const bad = await env.cli(['theme', 'set', 'no-such-theme']);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr + bad.stdout, /no-such-theme/);
});

test('user keys in [keys] add and remove bindings; a bad entry is reported, the rest kept', async (t) => {
  const env = tempEnvFor(t);
  mkdirSync(join(env.home, '.castellan'), { recursive: true });
  writeFileSync(join(env.home, '.castellan', 'config.toml'), '[keys]\n"prefix |" = "pane.split right"\n"prefix %" = "none"\n"prefix Q" = "no.such.command"\n');
  const h = await startAttached(env, { cols: 80, rows: 24 });
  await h.waitForText(/no\.such\.command|unknown command/, { message: 'the bad binding is reported in the bar' });
  h.prefix('%');
  h.prefix('|');
  await waitForPane(env, 'w1:p2', () => true, { message: 'prefix | split' });
  assert.equal((await listPanes(env)).length, 2, 'prefix % did nothing');
  const check = await env.cli(['config', 'check']);
  assert.match(check.stdout, /no\.such\.command/);
});

test('named sessions run separate servers with their own sockets', async (t) => {
  const env = tempEnvFor(t);
  const h = await startAttached(env, { cols: 80, rows: 24, args: ['--session', 'work'] });
  h.write('echo in-work\r');
  await h.waitForText('in-work');
  const list = await env.cli(['session', 'list', '--json']);
  const sessions = JSON.parse(list.stdout) as Array<{ session: string; running: boolean; socket: string }>;
  assert.deepEqual(sessions.filter((s) => s.running).map((s) => s.session), ['work']);
  assert.match(sessions[0].socket, /work\.sock$/);
  assert.equal((await env.cli(['server', 'status'])).code, 3, 'the default session is not running');
  h.prefix('d');
  await h.waitForExit();
  assert.equal((await env.cli(['session', 'stop', 'work'])).code, 0);
  assert.equal((await env.cli(['--session', 'work', 'server', 'status'])).code, 3);
  void KEY;
});

test('mouse: dragging the border between two panes resizes them; clicking a tab in the bar switches window', async (t) => {
  const env = tempEnvFor(t);
  const h = await startAttached(env, { cols: 100, rows: 24 });
  h.prefix('%');
  await waitForPane(env, 'w1:p2', (p) => p.focused);
  await h.waitForFrame('p2');
  const before = (await listPanes(env)).map((p) => p.cols);
  const left = await h.waitForFrame('p1', { where: (f) => f.w < 100 });
  const edge = left.x + left.w - 1; // p1's right border column
  // press on the border, drag 10 columns left, release
  h.write(mouse(0, edge, 5) + mouse(32, edge - 5, 5) + mouse(32, edge - 10, 5) + mouse(0, edge - 10, 5, true));
  await waitFor(async () => (await listPanes(env))[0].cols === before[0] - 10, { message: 'p1 is 10 columns narrower', observe: async () => JSON.stringify((await listPanes(env)).map((p) => p.cols)) });
  assert.equal((await listPanes(env))[1].cols, before[1] + 10, 'p2 took the space');
  // a second window, then click the first tab
  h.prefix('c');
  await h.waitForText(/ 2:\S+\*/, { region: { top: 23, bottom: 24 } });
  const bar = (await h.screenText())[23];
  const tab1 = bar.search(/ 1:/);
  h.write(mouse(0, tab1 + 2, 23) + mouse(0, tab1 + 2, 23, true));
  await h.waitForText(/ 1:\S+\* /, { region: { top: 23, bottom: 24 }, message: 'clicking tab 1 selected window 1' });
});
