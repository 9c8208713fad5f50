// E2E (real bin in a pty, screen read back): new panes where you are, ids you can read, no badges on shells, messages, help keys, prefix 0.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempEnvFor } from '../support/temp-env.js';
import { listPanes, PROMPT_RE, readPane, startAttached, waitForPane } from '../support/term-harness.js';
import { waitFor } from '../support/wait-for.js';

const BAR = { top: 23, bottom: 24 };
const TOP = { top: 0, bottom: 1 };

test('a split opens in the focused pane\'s directory; [session] new_pane_cwd = "server" opens where the server started', async (t) => {
  const env = tempEnvFor(t);
  const deep = join(env.home, 'proj', 'sub dir');
  mkdirSync(deep, { recursive: true });
  const h = await startAttached(env, { cols: 100, rows: 24, timeoutMs: 20_000 });
  // The split reads the shell's cwd when it happens: wait until the shell has run the cd (a split typed right behind
  // it raced the shell, as it would in tmux, and failed 1 run in ~10 under load).
  h.write(`cd '${deep}' && echo cd-$((40+2))\r`);
  await waitFor(async () => (await readPane(env, 'w1:p1')).some((l) => l.trim() === 'cd-42'), { message: 'the shell ran the cd' });
  h.prefix('%');
  const p2 = await h.waitForFrame('p2');
  await h.waitForText(PROMPT_RE, { region: p2.inner });
  h.write('pwd\r');
  await waitFor(async () => (await readPane(env, 'w1:p2')).includes(realpathSync(deep)), {
    message: 'the new pane starts in proj/sub dir',
    observe: async () => ({ pane: await readPane(env, 'w1:p2'), log: env.logTail() }),
  });
  h.prefix('c');
  await h.waitForText(/ 2:(?:tsh|bash)\*/, { region: BAR });
  const w2 = (await listPanes(env)).find((p) => p.window_id === 'w2')!;
  h.write('pwd\r');
  await waitFor(async () => (await readPane(env, w2.pane_id)).includes(realpathSync(deep)), { message: 'a new window starts there too' });

  mkdirSync(join(env.home, '.castellan'), { recursive: true });
  writeFileSync(join(env.home, '.castellan', 'config.toml'), '[session]\nnew_pane_cwd = "server"\n');
  assert.equal((await env.cli(['config', 'reload'])).code, 0);
  h.prefix('"');
  const p3 = await h.waitForFrame('p2', { where: (f) => f.y > 0, message: 'a pane below in window 2' });
  await h.waitForText(PROMPT_RE, { region: p3.inner });
  h.write('pwd\r');
  const id = (await listPanes(env)).find((p) => p.window_id === 'w2' && p.active)!.pane_id;
  await waitFor(async () => (await readPane(env, id)).includes(realpathSync(env.home)), { message: 'with "server", the server\'s start directory (HOME here)' });
});

test('after closing a window the border shows the full pane id, and the CLI takes exactly that', async (t) => {
  const env = tempEnvFor(t);
  const h = await startAttached(env, { cols: 80, rows: 24, timeoutMs: 20_000 });
  h.prefix('c');
  await h.waitForText(/ 2:(?:tsh|bash)\*/, { region: BAR });
  h.prefix('c');
  await h.waitForText(/ 3:(?:tsh|bash)\*/, { region: BAR });
  h.prefix('2');
  await h.waitForText(/ 2:(?:tsh|bash)\*/, { region: BAR });
  h.prefix('&');
  await h.waitForText(/close window 2/, { region: BAR });
  h.write('y');
  await h.waitForNoText(/ 3:/, { region: BAR, message: 'three windows became two' });
  h.prefix('2');
  await h.waitForText(/^╭ w3:p1 /, { region: TOP, message: 'window 2 in the bar holds w3:p1, and the border says so' });
  await h.waitForText(/ 2:(?:tsh|bash)\*/, { region: BAR });
  const shown = (await h.regionText(TOP))[0].split(' ')[1];
  assert.equal(shown, 'w3:p1');
  const r = await env.cli(['pane', 'send', '--pane', shown, '--enter', 'echo VIA-CLI-$((2+3))']);
  assert.equal(r.code, 0, r.stderr);
  await h.waitForText('VIA-CLI-5', { message: 'the id read off the border reached the pane on screen' });
});

test('a bare shell, a pager and a finished command get no badge and no count; an agent report does, with its message', async (t) => {
  const env = tempEnvFor(t);
  const h = await startAttached(env, { cols: 160, rows: 24, timeoutMs: 20_000 });
  h.prefix('%');
  await h.waitForFrame('p2');
  // p1 is unfocused now: a finished command there is what used to turn "✔ done".
  assert.equal((await env.cli(['pane', 'send', '--pane', 'w1:p1', '--enter', 'seq 1 400000'])).code, 0);
  // seq must have finished: while it runs it is a program castellan does not know, which gets a generic badge.
  await h.waitForText(/│400000 /, { timeoutMs: 30_000, message: 'seq finished' });
  await waitForPane(env, 'w1:p1', (p) => p.agent.state === 'done' || p.agent.state === 'idle', { timeoutMs: 20_000, message: 'heuristics read the shell (they still run)' });
  assert.equal((await env.cli(['pane', 'send', '--pane', 'w1:p2', '--enter', 'less /etc/passwd'])).code, 0);
  await h.waitForText(/root/, { message: 'less on screen' });
  await waitForPane(env, 'w1:p2', (p) => p.agent.state !== 'unknown', { timeoutMs: 20_000, message: 'heuristics read less' });
  await h.settle();
  const screen = (await h.screenText()).join('\n');
  assert.doesNotMatch(screen, /[○●▲✔] (?:idle|working|blocked|done)/, `no badge on a shell or a pager:\n${screen}`);
  assert.doesNotMatch((await h.regionText(BAR)).join(''), /[○●▲✔]\d/, 'no counts in the bar');
  h.write('q');

  const report = ['herd', 'report', '--pane', 'w1:p1', '--agent', 'claude', '--state', 'blocked', '--source', 'hook', '--message', 'needs permission to rm -rf'];
  assert.equal((await env.cli(report)).code, 0);
  await h.waitForText(/needs permission to rm -rf +claude ▲ blocked/, { region: TOP, message: 'the message beside the badge on the border' });
  await h.waitForText(/▲1/, { region: BAR, message: 'an agent is counted' });
  const list = await env.cli(['herd', 'list']);
  assert.match(list.stdout, /w1:p1 +claude +blocked .*needs permission to rm -rf/, list.stdout);
  const json = JSON.parse((await env.cli(['herd', 'list', '--json'])).stdout) as Array<{ pane_id: string; message: string | null }>;
  assert.equal(json.find((p) => p.pane_id === 'w1:p1')?.message, 'needs permission to rm -rf');
  const explain = await env.cli(['herd', 'explain', '--pane', 'w1:p1']);
  assert.match(explain.stdout, /message: +"needs permission to rm -rf"/, explain.stdout);
  assert.equal((await env.cli(['herd', 'report', '--pane', 'w1:p1', '--agent', 'claude', '--state', 'working', '--source', 'hook'])).code, 0);
  await h.waitForText(/claude ● working/, { region: TOP });
  await h.waitForNoText('needs permission', { message: 'the message goes with the state it described' });
});

test('help overlay: G and End jump to the end, g to the top, and Up moves at once from the end', async (t) => {
  const env = tempEnvFor(t);
  const h = await startAttached(env, { cols: 100, rows: 24, timeoutMs: 20_000 });
  h.prefix('?');
  await h.waitForText('castellan keys', { message: 'the help overlay' });
  const LAST = 'List the buffers: not here';
  await h.waitForNoText(LAST, { message: 'the last binding starts below the fold' });
  h.write('G');
  await h.waitForText(LAST, { message: 'G shows the end of the list' });
  h.write('k');
  await h.waitForNoText(LAST, { message: 'one Up from the end scrolls at once (no dead keypresses)' });
  h.write('g');
  await h.waitForText(/Split: new pane on the right/, { message: 'g goes back to the top' });
  h.write('\x1b[F');
  await h.waitForText(LAST, { message: 'End shows the end of the list' });
  h.write('q');
  await h.waitForNoText('castellan keys');
});

test('prefix 0 selects window 10: windows number from 1, so the digit row reads 1..9 then 0', async (t) => {
  const env = tempEnvFor(t);
  const h = await startAttached(env, { cols: 200, rows: 24, timeoutMs: 20_000 });
  for (let i = 2; i <= 10; i++) assert.equal((await env.cli(['window', 'new', '--no-focus'])).code, 0);
  await h.waitForText(/ 10:(?:tsh|bash)\b/, { region: BAR, message: 'ten windows in the bar' });
  h.prefix('0');
  await h.waitForText(/ 10:(?:tsh|bash)\*/, { region: BAR, message: 'prefix 0 selects window 10' });
  h.prefix('1');
  await h.waitForText(/ 1:(?:tsh|bash)\*/, { region: BAR, message: 'prefix 1 selects window 1' });
});
