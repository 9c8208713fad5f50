// 3. Frame cost: CPU of server and client while one 200x50 pane receives a steady flood at a fixed rate.
//
// At a fixed input rate both multiplexers parse the same bytes per second, so CPU % is comparable (a full-speed
// `cat` only shows that each side saturates). Each system runs the same flood twice, with and without a client;
// the difference in server CPU is what serving a client costs (kept in the JSON as ms per frame; on a busy machine
// it is within the noise, so the table relies on the in-process "micro" section for the server's frame cost).
// The client's CPU divided by the frames it painted (counted from its synchronized-update brackets) is its cost to
// receive and paint one frame; tmux's client process is idle because the tmux server writes to its terminal itself.
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CastellanServer } from '../lib/castellan.js';
import type { BenchEnv } from '../lib/env.js';
import { cpuMs } from '../lib/proc.js';
import type { Row, SectionResult } from '../lib/report.js';
import type { TermClient } from '../lib/term-client.js';
import { TmuxServer } from '../lib/tmux.js';
import { log, MiB, now, round, shq, sleep } from '../lib/util.js';

const PRODUCER = fileURLToPath(new URL('../lib/producer.mjs', import.meta.url));
const WARMUP_MS = 700;

export interface FloodRun {
  system: 'castellan' | 'tmux';
  client: boolean;
  windowMs: number;
  serverCpuPct: number;
  clientCpuPct?: number;
  clientFrames?: number;
  clientKBps?: number;
  /** What the producer actually wrote (MB/s over its whole run): below the rate means the reader held it back. */
  producedMBps: number;
}

function producerArgs(b: BenchEnv, stats: string): string[] {
  const durMs = WARMUP_MS + b.opts.floodSeconds * 1000 + 500;
  return [PRODUCER, b.file, String(Math.round(b.opts.floodRateMiB * MiB)), String(durMs), stats];
}

async function measure(trigger: () => void | Promise<unknown>, b: BenchEnv, pids: { server: number }, client: TermClient | undefined, stats: string) {
  await trigger();
  await sleep(WARMUP_MS);
  const c0 = { s: cpuMs(pids.server), c: client ? cpuMs(client.pid) : NaN, f: client?.syncFrames ?? 0, b: client?.bytes ?? 0, t: now() };
  await sleep(b.opts.floodSeconds * 1000);
  const c1 = { s: cpuMs(pids.server), c: client ? cpuMs(client.pid) : NaN, f: client?.syncFrames ?? 0, b: client?.bytes ?? 0, t: now() };
  const windowMs = c1.t - c0.t;
  // Let the producer finish and report.
  let produced = { bytes: NaN, ms: NaN };
  for (let i = 0; i < 100; i++) {
    try {
      produced = JSON.parse(readFileSync(stats, 'utf8'));
      break;
    } catch {
      await sleep(50);
    }
  }
  return {
    windowMs,
    serverCpuPct: ((c1.s - c0.s) / windowMs) * 100,
    clientCpuPct: client ? ((c1.c - c0.c) / windowMs) * 100 : undefined,
    clientFrames: client ? c1.f - c0.f : undefined,
    clientKBps: client ? (c1.b - c0.b) / 1024 / (windowMs / 1000) : undefined,
    producedMBps: produced.bytes / MiB / (produced.ms / 1000),
  };
}

async function castellanFlood(b: BenchEnv, withClient: boolean): Promise<FloodRun> {
  const stats = join(b.tmp, `flood-${b.nextId()}.json`);
  const s = await CastellanServer.start(b, { cols: 202, rows: 53, command: ['sh', '-c', 'read _; exec "$0" "$@"', process.execPath, ...producerArgs(b, stats)], profile: b.opts.cpuProf });
  try {
    const client = withClient ? await s.attach(202, 53, { profile: b.opts.cpuProf }) : undefined;
    if (!client) await sleep(300);
    const m = await measure(() => (client ? client.write('\r') : s.api.request('pane.send_text', { pane_id: 'w1:p1', text: '\r' })), b, { server: s.pid }, client, stats);
    return { system: 'castellan', client: withClient, ...m };
  } finally {
    await s.stop();
  }
}

async function tmuxFlood(b: BenchEnv, withClient: boolean): Promise<FloodRun> {
  const stats = join(b.tmp, `flood-${b.nextId()}.json`);
  const t = await TmuxServer.start(b, { cols: 200, rows: 50, command: `read _; exec ${[process.execPath, ...producerArgs(b, stats)].map(shq).join(' ')}` });
  try {
    const client = withClient ? await t.attach(200, 51) : undefined;
    if (!client) await sleep(300);
    const m = await measure(() => (client ? client.write('\r') : t.cmd('send-keys', '-t', 'b', 'Enter')), b, { server: t.pid }, client, stats);
    return { system: 'tmux', client: withClient, ...m };
  } finally {
    await t.stop();
  }
}

export async function flood(b: BenchEnv): Promise<SectionResult> {
  const runs: FloodRun[] = [];
  for (const withClient of [true, false]) {
    for (const sys of ['castellan', 'tmux'] as const) {
      const r = sys === 'castellan' ? await castellanFlood(b, withClient) : await tmuxFlood(b, withClient);
      runs.push(r);
      log(`flood ${sys.padEnd(9)} ${withClient ? 'client   ' : 'no client'}: server ${round(r.serverCpuPct, 1)} %${r.clientCpuPct !== undefined ? `, client ${round(r.clientCpuPct, 1)} %, ${r.clientFrames} frames, ${round(r.clientKBps!, 0)} KB/s out` : ''}, produced ${round(r.producedMBps, 2)} MB/s`);
    }
  }
  const get = (sys: string, client: boolean) => runs.find((r) => r.system === sys && r.client === client)!;
  const cc = get('castellan', true), cn = get('castellan', false), tc = get('tmux', true), tn = get('tmux', false);
  const frames = cc.clientFrames!;
  const fps = frames / (cc.windowMs / 1000);
  const serverFrameMs = (((cc.serverCpuPct - cn.serverCpuPct) / 100) * cc.windowMs) / Math.max(1, frames);
  const clientFrameMs = ((cc.clientCpuPct! / 100) * cc.windowMs) / Math.max(1, frames);
  const S = `flood ${b.opts.floodRateMiB} MB/s`;
  const rows: Row[] = [
    { section: S, metric: 'server CPU, client attached', unit: '% core', castellan: cc.serverCpuPct, tmux: tc.serverCpuPct, digits: 1 },
    { section: S, metric: 'client CPU', unit: '% core', castellan: cc.clientCpuPct!, tmux: tc.clientCpuPct!, digits: 1, note: 'tmux: server draws' },
    { section: S, metric: 'server + client CPU', unit: '% core', castellan: cc.serverCpuPct + cc.clientCpuPct!, tmux: tc.serverCpuPct + tc.clientCpuPct!, digits: 1 },
    { section: S, metric: 'server CPU, no client', unit: '% core', castellan: cn.serverCpuPct, tmux: tn.serverCpuPct, digits: 1 },
    { section: S, metric: 'flood rate achieved (client attached)', unit: 'MB/s', castellan: cc.producedMBps, tmux: tc.producedMBps, digits: 2 },
    { section: S, metric: 'client output', unit: 'KB/s', castellan: cc.clientKBps!, tmux: tc.clientKBps!, digits: 0 },
    { section: S, metric: 'castellan frames painted', unit: 'fps', castellan: fps, digits: 1 },
    { section: S, metric: 'castellan client cost per frame (recv+parse+paint)', unit: 'ms', castellan: clientFrameMs, digits: 2 },
  ];
  return { rows, raw: { rateMiB: b.opts.floodRateMiB, windowSeconds: b.opts.floodSeconds, runs, castellanServerMsPerFrame: serverFrameMs, castellanClientMsPerFrame: clientFrameMs, castellanFps: fps } };
}
