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

const BAR = { top: 23, bottom: 24 };

test('item 6 at prefix :: tmux\'s words (split-window -h, resize-pane, send-keys), Tab completion, Up for the last line, hostile lines', async (t) => {
  const env = tempEnvFor(t);
  const h = await startAttached(env, { cols: 100, rows: 24 });
  h.prefix(':');
  h.write('split-w\t');
  await h.waitForText(/: split-window █/, { region: BAR, message: 'Tab completed the tmux name' });
  h.write('-h\r');
  await waitForPane(env, 'w1:p2', (p) => p.focused, { message: 'split-window -h opened w1:p2' });
  await h.waitForFrame('p2', { where: (f) => f.x > 0 && f.y === 0, message: 'to the right, as tmux -h' });
  h.prefix(':');
  h.write(KEY.up);
  await h.waitForText(/: split-window -h█/, { region: BAR, message: 'Up recalls the last command of an earlier prompt' });
  h.write(KEY.ctrlC);
  const before = await cols(env);
  h.prefix(':');
  h.write('resize-pane -t w1:p1 -R 4\r');
  await waitFor(async () => (await cols(env))['w1:p1'] === before['w1:p1'] + 4, { message: 'resize-pane -R 4', observe: async () => JSON.stringify(await cols(env)) });
  h.prefix(':');
  h.write('send-keys -t w1:p1 "echo sent-$((6*7))" Enter\r');
  await waitFor(async () => (await env.call<{ lines: string[] }>('pane.read', { pane_id: 'w1:p1', source: 'screen' })).lines.some((l) => l.trim() === 'sent-42'), { message: 'send-keys typed the words and pressed Enter in w1:p1' });
  // hostile: an unknown flag, a missing value, control characters, a huge line: a message, nothing else happens
  h.prefix(':');
  h.write('split-window -x\r');
  await h.waitForText(/unknown flag -x/, { region: BAR });
  h.prefix(':');
  h.write('new-window -n\r');
  await h.waitForText(/-n needs a value/, { region: BAR });
  h.prefix(':');
  h.write('rename-window ' + 'z'.repeat(600) + '\r');
  await h.waitForText(/at most 200/, { region: BAR, message: 'the prompt line is capped; the name is refused' });
  assert.equal((await listPanes(env)).length, 2, 'none of them opened a pane');
});

test('item 6 on the CLI: split-window, send-keys, resize-pane -Z, swap-pane, new-window -n -c, rename/select/kill-window; hostile arguments exit 2', async (t) => {
  const env = tempEnvFor(t);
  const h = await startAttached(env, { cols: 100, rows: 24 });
  const ok = async (args: string[]) => {
    const r = await env.cli(args);
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
    return r;
  };
  assert.match((await ok(['split-window', '-h', '-t', 'w1:p1'])).stdout, /w1:p2/);
  await ok(['send-keys', '-t', 'w1:p2', 'echo cli-$((6*7))', 'Enter']);
  await waitFor(async () => (await env.call<{ lines: string[] }>('pane.read', { pane_id: 'w1:p2', source: 'screen' })).lines.some((l) => l.trim() === 'cli-42'), { message: 'send-keys from the CLI' });
  const before = await cols(env);
  await ok(['resize-pane', '-t', 'w1:p1', '-L', '3']);
  assert.equal((await cols(env))['w1:p1'], before['w1:p1'] - 3);
  assert.match((await ok(['resize-pane', '-Z', '-t', 'w1:p1'])).stdout, /^zoomed/);
  await ok(['pane', 'zoom', '--pane', 'w1:p1', '--off']);
  await ok(['swap-pane', '-t', 'w1:p1', '-D']);
  await h.waitForFrame('p1', { where: (f) => f.x > 0, message: 'w1:p1 moved to the right place' });
  await ok(['new-window', '-n', 'build', '-c', env.home]);
  const wins = async () => (await env.call<{ windows: Array<{ window_id: string; index: number; name: string }> }>('window.list', {})).windows;
  assert.equal((await wins())[1].name, 'build');
  await ok(['rename-window', '-t', '2', 'logs']);
  assert.equal((await wins())[1].name, 'logs');
  await ok(['select-window', '-t', '1']);
  await h.waitForText(/ 1:\S+\*/, { region: BAR, message: 'select-window -t 1' });
  await ok(['next-window']);
  await h.waitForText(/ 2:logs\*/, { region: BAR, message: 'next-window' });
  await ok(['kill-window', '-t', '2']);
  assert.equal((await wins()).length, 1);
  await ok(['window', 'rename', '--window', '1', 'a\x07\x1b[31mb']);
  assert.doesNotMatch((await wins())[0].name, /[\x00-\x1f]/, 'control characters never reach the bar');
  for (const bad of [['split-window', '-x'], ['split-window', '-c'], ['select-window'], ['select-window', '-t', 'nine'], ['rename-window'],
    ['resize-pane', '-L', '99999'], ['resize-pane', '-x', '10'], ['send-keys', '-t', '%1', 'x'], ['rename-window', 'x'.repeat(100_000)], ['kill-pane', '-t', 'w1:p1', 'extra'],
    ['window', 'select', '--window', 'w1', '--next'], ['pane', 'resize', '--direction', 'sideways'], ['pane', 'swap', '--with', 'w1:px'], ['rename-session', 'x']]) {
    const r = await env.cli(bad);
    assert.equal(r.code, 2, `${bad.join(' ').slice(0, 60)} exits 2 (usage), got ${r.code}: ${r.stderr.slice(0, 200)}`);
    assert.ok(r.stderr.length < 2000, 'a short message, not an echo of the input');
  }
  assert.equal((await listPanes(env)).length, 2, 'nothing hostile changed the panes');
  const help = await env.cli(['help', 'split-window']);
  assert.match(help.stdout, /split-window \[-bdhv\]/);
});

test('item 7: prefix q numbers the panes (a digit focuses), C-o rotates, E spreads, PgUp is copy mode a page up, f finds, \' and . take a number; $ says why not, and prefix ? lists it', async (t) => {
  const env = tempEnvFor(t);
  const h = await startAttached(env, { cols: 100, rows: 24 });
  h.prefix('%');
  await waitForPane(env, 'w1:p2', (p) => p.focused);
  // The client numbers the panes of the window it has drawn: its frame with the split must have arrived (under load the
  // server's state is ahead of the client's view by a frame).
  await h.waitForText(/w1:p2/, { message: 'the client drew the split' });
  h.prefix('q');
  await h.waitForText(/pane\? 0 w1:p1 +1 w1:p2\*/, { region: BAR, message: 'prefix q shows the pane numbers' });
  h.write('0');
  await waitForPane(env, 'w1:p1', (p) => p.focused, { message: 'digit 0 focused the first pane' });
  // C-o: rotate; focus stays in the first place, now held by w1:p2
  h.prefix('\x0f');
  await h.waitForFrame('p2', { where: (f) => f.x === 0, message: 'prefix C-o moved w1:p2 to the first place' });
  await waitForPane(env, 'w1:p2', (p) => p.focused);
  h.prefix('\x1bo');
  await h.waitForFrame('p1', { where: (f) => f.x === 0, message: 'prefix M-o rotated back' });
  h.prefix('\x1b[1;5C'); // C-Right: make them uneven
  h.prefix('\x1b[1;5C');
  await waitFor(async () => { const c = await cols(env); return c['w1:p1'] !== c['w1:p2']; }, { message: 'uneven' });
  h.prefix('E');
  await waitFor(async () => { const c = await cols(env); return Math.abs(c['w1:p1'] - c['w1:p2']) <= 1; }, { message: 'prefix E spread them evenly', observe: async () => JSON.stringify(await cols(env)) });
  // PgUp: copy mode and a page up at once
  h.write('seq 1 200\r');
  await h.waitForText(/^│200 /m, { message: 'seq finished' });
  h.prefix('\x1b[5~');
  await h.waitForText(/\[\d+\/\d+\]/, { message: 'copy mode indicator' });
  await h.waitForNoText(/^│200 /m, { message: 'a page up from the bottom' });
  h.write('q');
  await h.waitForText(/^│200 /m, { message: 'out of copy mode' });
  // windows: ' asks for a number, . moves the window, f finds one
  h.prefix('c');
  await h.waitForText(/ 2:\S+\*/, { region: BAR });
  h.prefix("'");
  await h.waitForText(/index:/, { region: BAR });
  h.write('1\r');
  await h.waitForText(/ 1:\S+\* /, { region: BAR, message: "prefix ' 1 showed window 1" });
  h.prefix('.');
  await h.waitForText(/move window to:/, { region: BAR });
  h.write('2\r');
  await waitFor(async () => (await env.call<{ windows: Array<{ window_id: string }> }>('window.list', {})).windows[1].window_id === 'w1', { message: 'prefix . 2 moved w1 to the second place' });
  h.prefix('f');
  await h.waitForText(/find-window:/, { region: BAR });
  h.write('w2\r');
  await h.waitForText(/filter: w2/, { region: { top: 0, bottom: 1 }, message: 'the chooser opened filtered by the text' });
  await h.waitForText(/w2:p1/, { message: 'the window found' });
  const shown = (await h.screenText()).join('\n');
  assert.doesNotMatch(shown, /w1:p1/, 'the other window is filtered out');
  h.write(KEY.escape);
  await h.waitForNoText(/choose/, { region: { top: 0, bottom: 1 }, message: 'the chooser closed' });
  // keys castellan leaves unbound on purpose say why, and prefix ? lists why
  h.prefix('$');
  await h.waitForText(/session's name is its server's socket/, { region: BAR });
  h.prefix('(');
  await h.waitForText(/no other session/, { region: BAR, message: 'prefix ( with one session says so' });
  h.prefix('?');
  h.write('/');
  h.write('not here');
  await h.waitForText(/Rename the session: not here/, { message: 'the help lists the reason' });
});
