// 2. Keystroke echo latency: a key typed into the client's pty until its echo shows up in the client's output.
//
// The focused pane runs `cat` (the kernel tty echoes the key, as a shell's line editor would). Every key is a
// different CJK ideograph that the flood file never contains, so a needle cannot match anything but its own echo,
// even if a client repaints old rows. 30 keys per line, then Enter. Keys are spaced 15-40 ms apart at random so
// they do not lock onto the 33 ms frame clock. "flood": a second pane (split right, not focused) runs
// `while :; do cat FILE; done`.
import { CastellanServer } from '../lib/castellan.js';
import type { BenchEnv } from '../lib/env.js';
import { cpuMs } from '../lib/proc.js';
import type { Row, SectionResult } from '../lib/report.js';
import type { TermClient } from '../lib/term-client.js';
import { TmuxServer } from '../lib/tmux.js';
import { log, now, prng, quantile, round, shq, sleep } from '../lib/util.js';

const FLOOD = 'while :; do cat "$0"; done';
// 日, 本, 語 occur in the flood file.
const EXCLUDE = new Set([0x65e5, 0x672c, 0x8a9e]);

export interface EchoStats {
  n: number;
  timeouts: number;
  median: number;
  p90: number;
  p99: number;
  max: number;
  min: number;
  serverCpuPct: number;
  clientCpuPct: number;
}

export async function typeKeys(b: BenchEnv, client: TermClient, pids: { server: number; client: number }): Promise<EchoStats> {
  const rnd = prng(7);
  let code = 0x4e00;
  const nextChar = () => {
    do code++;
    while (EXCLUDE.has(code));
    return String.fromCodePoint(code);
  };
  const lat: number[] = [];
  let timeouts = 0;
  let onLine = 0;
  const cpu0 = { s: cpuMs(pids.server), c: cpuMs(pids.client) };
  const t0 = now();
  for (let k = 0; k < b.opts.samples; k++) {
    if (onLine >= 30) {
      client.write('\r');
      onLine = 0;
      await sleep(100);
    }
    const ch = nextChar();
    const seen = client.waitFor(ch, 2000);
    const ts = now();
    client.write(ch);
    const te = await seen;
    onLine++;
    if (Number.isFinite(te)) lat.push(te - ts);
    else timeouts++;
    await sleep(15 + Math.floor(rnd() * 25));
  }
  const dt = now() - t0;
  const q = (f: number) => quantile(lat, f);
  return {
    n: lat.length,
    timeouts,
    median: q(0.5),
    p90: q(0.9),
    p99: q(0.99),
    max: Math.max(...lat),
    min: Math.min(...lat),
    serverCpuPct: ((cpuMs(pids.server) - cpu0.s) / dt) * 100,
    clientCpuPct: ((cpuMs(pids.client) - cpu0.c) / dt) * 100,
  };
}

async function castellanEcho(b: BenchEnv, flood: boolean): Promise<EchoStats> {
  const s = await CastellanServer.start(b, { cols: 202, rows: 53, command: ['cat'], profile: b.opts.cpuProf });
  try {
    if (flood) {
      await s.api.request('pane.split', { pane_id: 'w1:p1', direction: 'right', command: ['sh', '-c', FLOOD, b.file], focus: false });
      await s.notePanes();
    }
    const c = await s.attach(202, 53, { profile: b.opts.cpuProf });
    if (flood) await sleep(1000);
    const panes = await s.panes();
    if (!panes.find((p) => p.focused && p.command[0] === 'cat')) throw new Error(`castellan: the cat pane is not focused: ${JSON.stringify(panes)}`);
    return await typeKeys(b, c, { server: s.pid, client: c.pid });
  } finally {
    await s.stop();
  }
}

async function tmuxEcho(b: BenchEnv, flood: boolean): Promise<EchoStats> {
  const t = await TmuxServer.start(b, { cols: 200, rows: 50, command: 'cat' });
  try {
    if (flood) {
      await t.cmd('split-window', '-d', '-h', '-t', 'b', `${FLOOD.replace('"$0"', shq(b.file))}`);
      await t.notePanes();
    }
    const c = await t.attach(200, 51);
    if (flood) await sleep(1000);
    return await typeKeys(b, c, { server: t.pid, client: c.pid });
  } finally {
    await t.stop();
  }
}

export async function echo(b: BenchEnv): Promise<SectionResult> {
  const raw: Record<string, EchoStats> = {};
  for (const flood of [false, true]) {
    for (const sys of ['castellan', 'tmux'] as const) {
      const r = sys === 'castellan' ? await castellanEcho(b, flood) : await tmuxEcho(b, flood);
      raw[`${sys}-${flood ? 'flood' : 'idle'}`] = r;
      log(`echo ${sys.padEnd(9)} ${flood ? 'flood' : 'idle '}: n=${r.n} timeouts=${r.timeouts} median ${round(r.median)} ms p90 ${round(r.p90)} p99 ${round(r.p99)} max ${round(r.max)}`);
    }
  }
  const S = 'echo';
  const rows: Row[] = [];
  for (const load of ['idle', 'flood'] as const) {
    const c = raw[`castellan-${load}`], t = raw[`tmux-${load}`];
    const label = load === 'idle' ? 'keystroke echo median, idle' : 'keystroke echo median, another pane flooding';
    rows.push(
      { section: S, metric: `${load}: median`, unit: 'ms', castellan: c.median, tmux: t.median, target: { ratioMax: 2 }, headline: label },
      { section: S, metric: `${load}: p90`, unit: 'ms', castellan: c.p90, tmux: t.p90, ...(load === 'flood' ? { target: { max: 3 }, headline: 'keystroke echo p90, another pane flooding' } : {}) },
      { section: S, metric: `${load}: p99`, unit: 'ms', castellan: c.p99, tmux: t.p99 },
      { section: S, metric: `${load}: keys echoed / timeouts (2 s)`, unit: 'n', castellan: c.n, tmux: t.n, note: `${c.timeouts} / ${t.timeouts} t/o`, digits: 0 },
      { section: S, metric: `${load}: server CPU while typing`, unit: '% core', castellan: c.serverCpuPct, tmux: t.serverCpuPct, digits: 1 },
      { section: S, metric: `${load}: client CPU while typing`, unit: '% core', castellan: c.clientCpuPct, tmux: t.clientCpuPct, digits: 1, note: 'tmux: server draws' },
    );
  }
  return { rows, raw };
}
