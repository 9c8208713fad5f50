// 4. Idle CPU: four idle bash panes (one window, split into four), a client attached; CPU of server and client.
//
// CPU is sampled every 500 ms so one-off work is told apart from a steady drain: "mean" counts everything in the
// window, "largest burst" is the biggest 500 ms sample. The window starts 25 s after the client attached: a
// server that has just started and drawn its panes collects its garbage a few times in the next ~20 s (its own
// young-generation shrink ~10 s in, then V8's memory reducer ~8 s after that: 25-110 ms each, traced December 2026),
// and a 500 ms sample that caught one read 50-100 ms. That is the start's cost, not idling's: it is its own row
// ("CPU while settling"), and the target is judged on the window after it.
import { CastellanServer } from '../lib/castellan.js';
import type { BenchEnv } from '../lib/env.js';
import { cpuMs } from '../lib/proc.js';
import type { Row, SectionResult } from '../lib/report.js';
import type { TermClient } from '../lib/term-client.js';
import { TmuxServer } from '../lib/tmux.js';
import { log, median, now, round, sleep } from '../lib/util.js';

const SHELL = ['bash', '--norc', '--noprofile'];
// Longer than detection takes to settle a fresh pane's badge (recency 2 s + debounce 0.8 s) and than the start's
// garbage collections (above), so only true idle is measured (--quick: 5 s, and its window may hold one).
const settleMs = (b: BenchEnv): number => (b.opts.quick ? 5000 : 25_000);

export interface IdleRun {
  seconds: number;
  serverCpuPct: number;
  clientCpuPct: number;
  /** CPU ms of server+client in each 500 ms sample. */
  samplesMs: number[];
  maxBurstMs: number;
  /** Median over the samples, as % of a core: the steady state. */
  steadyPct: number;
  /** Bytes the client wrote to its terminal during the window (0 means it drew nothing). */
  clientBytes: number;
  /** Server + client CPU during the settling before the window, as % of a core. */
  settlingPct: number;
  serverWakeups?: number;
}

async function window(b: BenchEnv, serverPid: number, client: TermClient): Promise<IdleRun> {
  const settle0 = { cpu: cpuMs(serverPid) + cpuMs(client.pid), t: now() };
  await sleep(settleMs(b));
  const c0 = { s: cpuMs(serverPid), c: cpuMs(client.pid), b: client.bytes, t: now() };
  const settlingPct = ((c0.s + c0.c - settle0.cpu) / (c0.t - settle0.t)) * 100;
  const samplesMs: number[] = [];
  let prev = c0.s + c0.c;
  const end = c0.t + b.opts.idleSeconds * 1000;
  while (now() < end) {
    await sleep(Math.min(500, Math.max(0, end - now())));
    const x = cpuMs(serverPid) + cpuMs(client.pid);
    samplesMs.push(x - prev);
    prev = x;
  }
  const c1 = { s: cpuMs(serverPid), c: cpuMs(client.pid), b: client.bytes, t: now() };
  const ms = c1.t - c0.t;
  return {
    seconds: ms / 1000,
    serverCpuPct: ((c1.s - c0.s) / ms) * 100,
    clientCpuPct: ((c1.c - c0.c) / ms) * 100,
    clientBytes: c1.b - c0.b,
    samplesMs: samplesMs.map((x) => round(x, 2)),
    maxBurstMs: Math.max(...samplesMs),
    steadyPct: (median(samplesMs) / 500) * 100,
    settlingPct,
  };
}

async function castellanIdle(b: BenchEnv): Promise<IdleRun> {
  const s = await CastellanServer.start(b, { cols: 202, rows: 53, command: SHELL });
  try {
    await s.api.request('pane.split', { pane_id: 'w1:p1', direction: 'right', command: SHELL, focus: false });
    await s.api.request('pane.split', { pane_id: 'w1:p1', direction: 'down', command: SHELL, focus: false });
    await s.api.request('pane.split', { pane_id: 'w1:p2', direction: 'down', command: SHELL, focus: false });
    const panes = await s.notePanes();
    if (panes.length !== 4) throw new Error(`castellan: expected 4 panes, got ${panes.length}`);
    const c = await s.attach(202, 53);
    return await window(b, s.pid, c);
  } finally {
    await s.stop();
  }
}

async function tmuxIdle(b: BenchEnv): Promise<IdleRun> {
  const sh = SHELL.join(' ');
  const t = await TmuxServer.start(b, { cols: 200, rows: 50, command: sh });
  try {
    await t.cmd('split-window', '-d', '-h', '-t', 'b:0.0', sh);
    await t.cmd('split-window', '-d', '-v', '-t', 'b:0.0', sh);
    await t.cmd('split-window', '-d', '-v', '-t', 'b:0.2', sh);
    await t.notePanes();
    if ((await t.panes()).length !== 4) throw new Error('tmux: expected 4 panes');
    const c = await t.attach(200, 51);
    return await window(b, t.pid, c);
  } finally {
    await t.stop();
  }
}

export async function idle(b: BenchEnv): Promise<SectionResult> {
  const c = await castellanIdle(b);
  log(`idle castellan: server ${round(c.serverCpuPct, 3)} %, client ${round(c.clientCpuPct, 3)} %, client wrote ${c.clientBytes} B in ${round(c.seconds, 1)} s; 500 ms samples (ms): ${c.samplesMs.join(' ')}`);
  const t = await tmuxIdle(b);
  log(`idle tmux     : server ${round(t.serverCpuPct, 3)} %, client ${round(t.clientCpuPct, 3)} %, client wrote ${t.clientBytes} B in ${round(t.seconds, 1)} s; 500 ms samples (ms): ${t.samplesMs.join(' ')}`);
  const S = 'idle (4 panes)';
  const rows: Row[] = [
    { section: S, metric: `server CPU over ${b.opts.idleSeconds} s`, unit: '% core', castellan: c.serverCpuPct, tmux: t.serverCpuPct, digits: 3 },
    { section: S, metric: 'client CPU', unit: '% core', castellan: c.clientCpuPct, tmux: t.clientCpuPct, digits: 3 },
    { section: S, metric: 'server + client CPU, mean', unit: '% core', castellan: c.serverCpuPct + c.clientCpuPct, tmux: t.serverCpuPct + t.clientCpuPct, digits: 3, target: { max: 1, text: 'near 0 (< 1 %)' }, headline: 'CPU, 4 idle panes (server + client)' },
    { section: S, metric: 'server + client CPU, median 500 ms sample', unit: '% core', castellan: c.steadyPct, tmux: t.steadyPct, digits: 3 },
    { section: S, metric: 'largest 500 ms burst (server + client)', unit: 'ms CPU', castellan: c.maxBurstMs, tmux: t.maxBurstMs, digits: 1 },
    { section: S, metric: `server + client CPU while settling (the ${settleMs(b) / 1000} s after attaching, before the window)`, unit: '% core', castellan: c.settlingPct, tmux: t.settlingPct, digits: 3 },
    { section: S, metric: 'client bytes written while idle', unit: 'B', castellan: c.clientBytes, tmux: t.clientBytes, digits: 0 },
  ];
  return { rows, raw: { castellan: c, tmux: t } };
}
