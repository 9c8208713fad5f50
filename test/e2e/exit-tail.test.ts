// E2E: a pane whose program exits keeps every byte it wrote and shows its exit code (repeated, to catch the tail-loss race).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tempEnvFor, type TempEnv } from '../support/temp-env.js';
import { readPane, startAttached, waitForPane, type PaneInfo } from '../support/term-harness.js';

const SEQ = (n: number, code: number) => ['sh', '-c', `seq 1 ${n}; exit ${code}`];

/** Waits for the pane to exit, then checks that its scrollback holds 1..n in order, right before the exit notice. */
async function checkSeqPane(env: TempEnv, pane: string, n: number, code: number, round: string): Promise<PaneInfo> {
  const info = await waitForPane(env, pane, (p) => !!p.exited, { timeoutMs: 8000, message: `${pane} exits (${round})` });
  assert.deepEqual(info.exited, { code, signal: null }, `exit code (${round})`);
  const lines = await readPane(env, pane, { source: 'scrollback', lines: n + 100 });
  const first = lines.indexOf('1');
  const last = lines.lastIndexOf(String(n));
  const tail = lines.slice(-6).join('\n');
  assert.ok(first >= 0, `line 1 kept (${round}); tail:\n${tail}`);
  assert.ok(last > first, `last line ${n} kept (${round}); the pane ends with:\n${tail}`);
  const got = lines.slice(first, last + 1);
  const missing = Array.from({ length: n }, (_, i) => String(i + 1)).filter((x, i) => got[i] !== x);
  assert.equal(missing.length, 0, `every line 1..${n} in order (${round}); first differences at ${missing.slice(0, 5).join(',')}`);
  const after = lines.slice(last + 1).filter((l) => l !== '');
  assert.deepEqual(after, [`[exited with code ${code} — press Enter to close this pane]`], `the exit notice follows the last line (${round})`);
  return info;
}

test('castellan server start -- sh -c "seq 1 3000; exit 7": all 3000 lines and exit code 7, 3 times', async (t) => {
  for (let round = 1; round <= 3; round++) {
    const env = tempEnvFor(t);
    const r = await env.cli(['server', 'start', '--', ...SEQ(3000, 7)]);
    assert.equal(r.code, 0, `${r.stdout}${r.stderr}`);
    await checkSeqPane(env, 'w1:p1', 3000, 7, `server start, round ${round}`);
    await env.cleanup();
  }
});

test('panes split with a command via the API keep their last output, 8 times on one server', async (t) => {
  const env = tempEnvFor(t);
  assert.equal((await env.cli(['server', 'start', '--cols', '120', '--rows', '40'])).code, 0);
  for (let round = 1; round <= 8; round++) {
    // Alternate sizes and exit codes so a stale result from an earlier round cannot pass.
    const n = round % 2 ? 3000 : 1234;
    const code = 1 + (round % 5); // a failure: the pane stays to be read (a clean exit closes it)
    const { pane_id } = await env.call<{ pane_id: string }>('pane.split', { pane_id: 'w1:p1', direction: 'down', command: SEQ(n, code) });
    await checkSeqPane(env, pane_id, n, code, `split round ${round}`);
    await env.call('pane.close', { pane_id });
  }
});

test('the tail of a flood larger than the flow-control window survives the exit', async (t) => {
  const env = tempEnvFor(t);
  // 2 MB of output, beyond the 1 MB high-water mark where the server pauses reading the pty.
  const script = 'yes 0123456789abcdefghi | head -n 100000; echo TAIL-$((6*7)); exit 3';
  assert.equal((await env.cli(['server', 'start', '--', 'sh', '-c', script])).code, 0);
  const info = await waitForPane(env, 'w1:p1', (p) => !!p.exited, { timeoutMs: 9000, message: 'the flood ends' });
  assert.deepEqual(info.exited, { code: 3, signal: null });
  const lines = (await readPane(env, 'w1:p1', { source: 'scrollback', lines: 6 })).filter((l) => l !== '');
  assert.deepEqual(lines.slice(-3), ['0123456789abcdefghi', 'TAIL-42', '[exited with code 3 — press Enter to close this pane]'], `tail kept:\n${lines.join('\n')}`);
});

test('an exited pane shows its exit code on the border and closes on Enter', async (t) => {
  const env = tempEnvFor(t);
  assert.equal((await env.cli(['server', 'start', '--', ...SEQ(50, 7)])).code, 0);
  await waitForPane(env, 'w1:p1', (p) => !!p.exited);
  const { pane_id } = await env.call<{ pane_id: string }>('pane.split', { pane_id: 'w1:p1', direction: 'right', focus: false });
  const h = await startAttached(env, { cols: 100, rows: 30 });
  const p1 = await h.waitForFrame('p1');
  await h.waitForText(' exited 7 ', { region: { top: p1.y, bottom: p1.y + 1, left: p1.x, right: p1.x + p1.w }, message: 'exit badge on p1\'s top border' });
  await h.waitForText('[exited with code 7', { region: p1.inner });
  await h.waitForText('50', { region: p1.inner });
  h.write('\r');
  await h.waitForFrame(pane_id.split(':')[1], { where: (f) => f.w === 100, message: 'Enter closed the exited pane; the other takes the window' });
  assert.equal((await h.frames()).length, 1);
});

test('a program killed by a signal shows the signal', async (t) => {
  const env = tempEnvFor(t);
  assert.equal((await env.cli(['server', 'start', '--', 'sh', '-c', 'echo DYING-$((1+1)); kill -9 $$'])).code, 0);
  const info = await waitForPane(env, 'w1:p1', (p) => !!p.exited, { message: 'the pane is killed' });
  assert.deepEqual(info.exited, { code: null, signal: 9 });
  const lines = (await readPane(env, 'w1:p1', { source: 'scrollback' })).filter((l) => l !== '');
  assert.equal(lines[0], 'DYING-2', 'its output is kept');
  assert.match(lines.slice(1).join(' '), /\[killed by signal 9/);
});

test('a command that cannot start says so, naming it, with exit code 127', async (t) => {
  const env = tempEnvFor(t);
  assert.equal((await env.cli(['server', 'start'])).code, 0);
  const { pane_id } = await env.call<{ pane_id: string }>('pane.split', { pane_id: 'w1:p1', command: ['/nonexistent/prog-x'] });
  const info = await waitForPane(env, pane_id, (p) => !!p.exited, { message: 'the pane ends' });
  const text = (await readPane(env, pane_id, { source: 'scrollback' })).join('\n');
  assert.match(text.replace(/\n/g, ''), /\/nonexistent\/prog-x/, `the message names the command (it may wrap in a narrow pane):\n${text}`);
  assert.deepEqual(info.exited, { code: 127, signal: null }, 'exit code 127, as shells use for "command not found"');
});
