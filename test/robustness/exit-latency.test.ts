// A pane's exit is reported within 50 ms of its last output, with every byte: also when a background job keeps the
// terminal open, when the program dies in the middle of an escape sequence, and seen from a socket subscriber.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { spawnPty } from '../../src/server/pty.js';
import { startInProcess, waitFor } from '../api/in-process.js';

const ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Runs a command in a pty; resolves with its output, exit code and how long after the last output the exit came. */
async function run(command: string[]): Promise<{ out: string; code: number | null; lagMs: number }> {
  const p = spawnPty({ command, cwd: '/', env: ENV, cols: 80, rows: 24 });
  const chunks: Buffer[] = [];
  let last = performance.now();
  p.onData((d) => {
    chunks.push(d);
    last = performance.now();
  });
  const e = await new Promise<{ code: number | null }>((r) => p.onExit(r));
  return { out: Buffer.concat(chunks).toString('utf8'), code: e.code, lagMs: performance.now() - last };
}

test('the exit comes right after the last output (median of 5 under 50 ms; node-pty alone waits 200 ms), every line kept', async () => {
  const lags: number[] = [];
  for (let i = 0; i < 5; i++) {
    const r = await run(['sh', '-c', 'seq 1 3000; exit 7']);
    assert.equal(r.code, 7);
    const lines = r.out.split('\r\n').filter(Boolean);
    assert.equal(lines.length, 3000, `run ${i}: ${lines.length} lines, last ${lines.at(-1)}`);
    lags.push(r.lagMs);
  }
  assert.ok(median(lags) < 50, `exit lags ${lags.map((x) => x.toFixed(1)).join(', ')} ms`);
});

test('a background job that keeps the terminal open delays the exit by a short bound only, and loses nothing', async () => {
  const r = await run(['sh', '-c', 'sleep 30 & echo "bg $!"; seq 1 3000; exit 3']);
  const bg = Number(/bg (\d+)/.exec(r.out)?.[1]);
  try {
    assert.equal(r.code, 3);
    const lines = r.out.split('\r\n').filter((l) => /^\d+$/.test(l));
    assert.equal(lines.length, 3000);
    assert.equal(lines.at(-1), '3000');
    // The bound is 40 ms; the rest is slack for a loaded machine, still well under node-pty's 200 ms.
    assert.ok(r.lagMs < 180, `exit ${r.lagMs.toFixed(1)} ms after the last output`);
  } finally {
    if (bg) process.kill(bg, 'SIGKILL');
  }
});

test('seen from the socket: pane_exited comes within 50 ms of the program\'s last write, after its last line', async (t) => {
  const s = await startInProcess({ command: ['sh'] });
  t.after(() => s.stop());
  const c = await s.connect();
  const arrivals = new Map<string, bigint>();
  c.onMessage((m) => {
    const e = m.event as { type?: string; pane?: string } | undefined;
    if (e?.type === 'pane_exited' && e.pane) arrivals.set(e.pane, BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6)));
  });
  await c.request('events.subscribe', { types: ['pane_exited'] });
  const lags: number[] = [];
  // The first panes of a fresh in-process server parse their 2000 lines and close with cold (unoptimised) code: the
  // first took 40-100 ms here, and beside two busy loops the second was the slowest lap in 13 of 16 runs (31-195 ms;
  // quiet, 45 ms where a second server in the same process read 17, 9, 10, 12, 8), while a server that has run a
  // while (the bench's) takes under 10. A user's server is the warm one, so two panes warm up and are not judged.
  for (let i = 0; i < 7; i++) {
    const stamp = join(s.home, `stamp-${i}`);
    // The program notes (wall clock, a bash builtin) when it wrote its last byte, then exits: nothing runs in between.
    const r = await c.request<{ pane_id: string }>('pane.split', { pane_id: 'w1:p1', direction: 'right', command: ['bash', '-c', `seq -f 'line %g' 1 2000; printf %s "$EPOCHREALTIME" > ${stamp}; exit 5`], focus: false });
    const id = r.pane_id;
    await waitFor(() => arrivals.has(id), { timeoutMs: 20_000, message: `pane_exited for ${id}` });
    const lag = Number(arrivals.get(id)!) / 1e6 - Number(readFileSync(stamp, 'utf8').trim()) * 1000;
    if (i > 1) lags.push(lag);
    const lines = (await c.request<{ lines: string[] }>('pane.read', { pane_id: id, source: 'scrollback', lines: 5 })).lines.join('\n');
    assert.match(lines, /line 2000\n[\s\S]*exited with code 5/, 'the last line, then the notice');
    await c.request('pane.close', { pane_id: id });
  }
  // Every step is an event-loop turn of this (test + server) process and a wakeup of sh: with far more runnable
  // processes than cores each waits for a CPU (measured: the pty's data reached us 80 ms after sh wrote it), so there
  // the figure is reported, not judged; the first test holds the bound on the pty path either way.
  const figure = `exit reported ${lags.map((x) => x.toFixed(1)).join(', ')} ms after the last write (load ${loadavg()[0].toFixed(1)})`;
  t.diagnostic(figure);
  if (loadavg()[0] <= cpus().length * 2) assert.ok(median(lags) < 50, figure);
});

test('hostile: a program that exits in the middle of an escape sequence still gets its exit reported and its text shown', async (t) => {
  const s = await startInProcess({ command: ['sh', '-c', "printf 'abc\\033[3'; exit 4"] });
  t.after(() => s.stop());
  const c = await s.connect();
  await waitFor(async () => {
    const p = (await c.request<{ panes: Array<{ exited?: { code: number | null } }> }>('pane.list', {})).panes[0];
    return p?.exited?.code === 4;
  }, { timeoutMs: 10_000, message: 'the pane to exit with 4' });
  const text = (await c.request<{ lines: string[] }>('pane.read', { pane_id: 'w1:p1', source: 'screen' })).lines.join('\n');
  assert.match(text, /abc/);
  assert.match(text, /exited with code 4/);
});
