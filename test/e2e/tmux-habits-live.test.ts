// E2E (real bin in a pty): waits a script can trust whether or not anyone looks, and config edits that apply live.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, tempEnvFor, type TempEnv } from '../support/temp-env.js';
import { paneById, startAttached } from '../support/term-harness.js';
import { waitFor } from '../support/wait-for.js';

/** `castellan herd wait ...` in the background; resolves with its exit code and output. */
function herdWait(env: TempEnv, args: string[]) {
  const child = spawn(process.execPath, [BIN, 'herd', 'wait', ...args], { env: env.env, cwd: env.home });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  env.onCleanup(() => child.kill('SIGKILL'));
  return new Promise<{ code: number | null; out: string }>((resolve) => child.on('exit', (code) => resolve({ code, out })));
}

async function armed(env: TempEnv, n = 1): Promise<void> {
  await waitFor(async () => (await env.call<{ subscribers: number }>('ping')).subscribers >= n, { message: 'herd wait subscribed' });
}

const report = (env: TempEnv, pane: string, state: string) =>
  env.cli(['herd', 'report', '--pane', pane, '--agent', 'claude', '--state', state, '--source', 'hook']);

test('herd wait --status done returns when the focused pane\'s turn ends, though it shows idle at once', async (t) => {
  const env = tempEnvFor(t);
  const h = await startAttached(env, { cols: 100, rows: 24, timeoutMs: 20_000 });
  assert.equal((await report(env, 'w1:p1', 'working')).code, 0);
  await h.waitForText(/claude ● working/, { region: { top: 0, bottom: 1 } });
  const wait = herdWait(env, ['--pane', 'w1:p1', '--status', 'done', '--timeout-ms', '20000']);
  await armed(env);
  assert.equal((await report(env, 'w1:p1', 'done')).code, 0);
  const r = await wait;
  assert.equal(r.code, 0, `the wait returned: ${r.out}`);
  assert.equal((await paneById(env, 'w1:p1'))?.agent.state, 'idle', 'the user saw it: the badge says idle');
  await h.waitForText(/claude ○ idle/, { region: { top: 0, bottom: 1 } });

  // A done report on an idle, focused pane (no working before it) still ends a wait for done.
  const again = herdWait(env, ['--pane', 'w1:p1', '--status', 'done', '--timeout-ms', '20000']);
  await armed(env);
  assert.equal((await report(env, 'w1:p1', 'done')).code, 0);
  assert.equal((await again).code, 0);
});

test('an unfocused pane held as done satisfies --status idle and --status done at once; idle waits out a working turn', async (t) => {
  const env = tempEnvFor(t);
  const h = await startAttached(env, { cols: 100, rows: 24, timeoutMs: 20_000 });
  h.prefix('%');
  await h.waitForFrame('p2');
  await waitFor(async () => (await paneById(env, 'w1:p2'))?.active === true, { message: 'p2 focused, p1 not' });
  assert.equal((await report(env, 'w1:p1', 'working')).code, 0);
  const idle = herdWait(env, ['--pane', 'w1:p1', '--status', 'idle', '--timeout-ms', '60000']);
  await armed(env);
  assert.equal((await report(env, 'w1:p1', 'done')).code, 0);
  await h.waitForText(/claude ✔ done/, { message: 'held as done: nobody looked' });
  const r = await idle;
  assert.equal(r.code, 0, `--status idle returned for a done agent: ${r.out}`);
  assert.match(r.out, /w1:p1: done/);
  for (const status of ['idle', 'done']) {
    const now = await env.cli(['herd', 'wait', '--pane', 'w1:p1', '--status', status, '--timeout-ms', '60000']);
    assert.equal(now.code, 0, `--status ${status} on a pane already done: ${now.stderr}`);
  }
  assert.equal((await report(env, 'w1:p1', 'working')).code, 0);
  const short = await env.cli(['herd', 'wait', '--pane', 'w1:p1', '--status', 'idle', '--timeout-ms', '300']);
  assert.equal(short.code, 124, 'a working agent is not idle');
});

test('editing the config applies live: a rename-replace save moves the bar to the top without shifting pane rows; reload by CLI and prompt', async (t) => {
  const env = tempEnvFor(t);
  const dir = join(env.home, '.castellan');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'config.toml');
  writeFileSync(file, '[ui]\nstatus_position = "bottom"\n');
  const h = await startAttached(env, { cols: 120, rows: 24, timeoutMs: 20_000 });
  h.write('echo BEFORE-$((1+1))\r');
  await h.waitForText('BEFORE-2');

  // As vim and most IDEs save: write a new file, rename it over the old one.
  writeFileSync(join(dir, '.config.toml.swp'), '[ui]\nstatus_position = "top"\n');
  renameSync(join(dir, '.config.toml.swp'), file);
  await h.waitForText(/ 1:(?:tsh|bash)\*/, { region: { top: 0, bottom: 1 }, timeoutMs: 10_000, message: 'the bar moved to the top by itself' });
  await h.waitForText('config reloaded (file changed)', { region: { top: 0, bottom: 1 } });
  const frame = await h.waitForFrame('p1', { where: (f) => f.y === 1, message: 'the pane border right below the bar' });
  h.write('echo AFTER-$((2+2))\r');
  await h.waitForText('AFTER-4', { region: frame.inner, message: 'new output inside the border' });
  const screen = await h.screenText();
  assert.match(screen[1], /^╭ w1:p1 /, `row 1 is still the border, not pane content:\n${screen.join('\n')}`);
  assert.match(screen[23], /^╰─+╯$/, 'the last row is the bottom border now');
  const before = screen.findIndex((l) => l.includes('BEFORE-2'));
  assert.ok(before >= 2, `old output sits inside the border too (row ${before})`);

  // A setting that cannot reach running panes says so.
  writeFileSync(file, '[ui]\nstatus_position = "top"\nscrollback = 500\n');
  await h.waitForText(/ui\.scrollback: new panes only/, { region: { top: 0, bottom: 1 }, timeoutMs: 10_000, message: 'the reload notice names what needs new panes' });
  const cli = await env.cli(['config', 'reload']);
  assert.equal(cli.code, 0, cli.stderr);
  assert.match(cli.stdout, /config reloaded/);

  h.prefix(':');
  h.write('config.reload\r');
  await h.waitForText(/config reloaded; ui\.scrollback|config reloaded/, { region: { top: 0, bottom: 1 }, message: 'the prompt command has the same name' });

  writeFileSync(file, '[ui]\nstatus_position = 3\n');
  const bad = await env.cli(['config', 'reload']);
  assert.equal(bad.code, 1, 'a file with errors: exit 1');
  assert.match(bad.stderr, /status_position/);
});
