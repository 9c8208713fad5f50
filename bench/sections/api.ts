// 6. The socket API and badges: ping round trip, report → badge repainted in a client, events/s a subscriber
// takes, and server CPU with 8 idle agent panes (detection must cost nothing when nothing changes).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CastellanServer } from '../lib/castellan.js';
import type { BenchEnv } from '../lib/env.js';
import { Ndjson } from '../lib/ndjson.js';
import { cpuMs } from '../lib/proc.js';
import type { Row, SectionResult } from '../lib/report.js';
import { log, median, now, quantile, round, sleep } from '../lib/util.js';

const SHELL = ['bash', '--norc', '--noprofile'];

async function pings(s: CastellanServer, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = now();
    await s.api.request('ping', {});
    out.push(now() - t0);
  }
  return out;
}

/** Time from sending pane.report_agent to the new badge text appearing in an attached client's output. */
async function badge(s: CastellanServer, n: number): Promise<number[]> {
  const c = await s.attach(162, 40);
  await c.settle();
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const agent = `b${i}`;
    const state = i % 2 ? 'idle' : 'working';
    const glyph = state === 'idle' ? '○' : '●';
    const seen = c.waitFor(`${agent} ${glyph} ${state}`, 5000);
    const t0 = now();
    await s.api.request('pane.report_agent', { pane_id: 'w1:p2', agent, state, source: 'api' });
    const at = await seen;
    if (Number.isFinite(at)) out.push(at - t0);
    await sleep(20);
  }
  return out;
}

/** A second connection fires reports as fast as the socket takes them; a subscriber counts the events it receives. */
async function eventRate(s: CastellanServer, n: number): Promise<{ perSec: number; received: number }> {
  const sub = await Ndjson.connect(s.socket);
  const pub = await Ndjson.connect(s.socket);
  let received = 0;
  let last = 0;
  sub.onMessage((m, at) => {
    if ((m as { event?: unknown }).event) {
      received++;
      last = at;
    }
  });
  await sub.request('events.subscribe', { types: ['pane_agent_status_changed'] });
  const t0 = now();
  const sent: Array<Promise<unknown>> = [];
  for (let i = 0; i < n; i++) sent.push(pub.request('pane.report_agent', { pane_id: 'w1:p2', agent: 'rate', state: i % 2 ? 'idle' : 'working', source: 'api' }));
  await Promise.all(sent);
  const deadline = now() + 10_000;
  while (received < n && now() < deadline) await sleep(10);
  sub.close();
  pub.close();
  return { perSec: (received / (last - t0)) * 1000, received };
}

/** Server CPU with 8 panes each showing a real agent's idle screen and doing nothing. */
async function idleAgents(b: BenchEnv, seconds: number): Promise<{ cpuPct: number }> {
  const screen = join(b.repo, 'test', 'fixtures', 'screens', 'claude', 'lab-160x45', 'idle-done.ansi.txt');
  readFileSync(screen);
  const cmd = ['sh', '-c', `cat '${screen}'; exec sleep 100000`];
  const s = await CastellanServer.start(b, { cols: 202, rows: 53, command: cmd });
  try {
    for (let i = 0; i < 7; i++) await s.api.request('window.new', { command: cmd, focus: false });
    await s.attach(202, 53);
    // Past the detectors' settling (recency 2 s + debounce 0.8 s) of the screens just drawn.
    await sleep(5000);
    const c0 = cpuMs(s.pid);
    const t0 = now();
    await sleep(seconds * 1000);
    return { cpuPct: ((cpuMs(s.pid) - c0) / (now() - t0)) * 100 };
  } finally {
    await s.stop();
  }
}

export async function api(b: BenchEnv): Promise<SectionResult> {
  const s = await CastellanServer.start(b, { cols: 160, rows: 40, command: SHELL });
  let p: number[];
  let bd: number[];
  let ev: { perSec: number; received: number };
  try {
    await s.api.request('pane.split', { pane_id: 'w1:p1', direction: 'right', command: SHELL, focus: false });
    await pings(s, 200);
    p = await pings(s, b.opts.quick ? 500 : 2000);
    bd = await badge(s, b.opts.quick ? 40 : 150);
    ev = await eventRate(s, b.opts.quick ? 5000 : 20000);
  } finally {
    await s.stop();
  }
  const ia = await idleAgents(b, b.opts.idleSeconds);
  log(`api: ping median ${round(median(p), 3)} ms, badge median ${round(median(bd), 2)} ms (${bd.length} samples), events ${Math.round(ev.perSec)}/s (${ev.received}), 8 idle agent panes ${round(ia.cpuPct, 3)} % CPU`);
  const S = 'api & badges';
  const rows: Row[] = [
    { section: S, metric: 'ping round trip, median / p99', unit: 'ms', castellan: median(p), note: `p99 ${round(quantile(p, 0.99), 3)}`, digits: 3 },
    { section: S, metric: 'report → badge repainted in a client, median', unit: 'ms', castellan: median(bd), note: `p90 ${round(quantile(bd, 0.9), 2)}`, digits: 2 },
    { section: S, metric: 'events a subscriber takes', unit: 'events/s', castellan: ev.perSec, digits: 0 },
    { section: S, metric: 'server CPU, 8 idle agent panes', unit: '% core', castellan: ia.cpuPct, digits: 3, target: 'near 0', pass: ia.cpuPct < 1 },
  ];
  return { rows, raw: { pingMs: p.map((x) => round(x, 3)), badgeMs: bd.map((x) => round(x, 2)), events: ev, idleAgents: ia } };
}
