// The scale bench's latency and storm probes: keystroke echo beside 8 floods, badge latency in a busy herd, a
// mouse-motion storm from an attached client.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { CastellanServer } from '../lib/castellan.js';
import type { BenchEnv } from '../lib/env.js';
import { cpuMs, mainThreadSched, rssKiB } from '../lib/proc.js';
import { TmuxServer } from '../lib/tmux.js';
import { median, now, quantile, shq, sleep } from '../lib/util.js';
import { typeKeys, type EchoStats } from '../sections/echo.js';
import type { Herd } from './herd.js';

const FLOOD = 'while :; do cat "$0"; done';

/** Echo in a `cat` pane while 8 panes of the same window (a 3x3 grid) each `cat` the ANSI file in a loop. */
export async function echoBesideFloods(b: BenchEnv, sys: 'castellan' | 'tmux', floods = 8, samples = b.opts.samples): Promise<EchoStats> {
  const keys = { ...b, opts: { ...b.opts, samples } };
  if (sys === 'castellan') {
    const s = await CastellanServer.start(b, { cols: 202, rows: 53, command: ['cat'] });
    try {
      const f = ['sh', '-c', FLOOD, b.file];
      const col2 = (await s.api.request<{ pane_id: string }>('pane.split', { pane_id: 'w1:p1', direction: 'right', command: f, focus: false })).pane_id;
      const col3 = (await s.api.request<{ pane_id: string }>('pane.split', { pane_id: col2, direction: 'right', command: f, focus: false })).pane_id;
      let left = floods - 2;
      for (const of of ['w1:p1', col2, col3]) for (let i = 0; i < 2 && left > 0; i++, left--) await s.api.request('pane.split', { pane_id: of, direction: 'down', command: f, focus: false });
      await s.notePanes();
      const c = await s.attach(202, 53);
      await sleep(1000);
      return await typeKeys(keys, c, { server: s.pid, client: c.pid });
    } finally {
      await s.stop();
    }
  }
  const t = await TmuxServer.start(b, { cols: 200, rows: 50, command: 'cat' });
  try {
    const f = FLOOD.replace('"$0"', shq(b.file));
    const split = async (dir: string, target: string) => (await t.cmd('split-window', '-d', dir, '-P', '-F', '#{pane_id}', '-t', target, f)).trim();
    const first = (await t.cmd('display-message', '-p', '-t', 'b:0.0', '#{pane_id}')).trim();
    const col2 = await split('-h', first);
    const col3 = await split('-h', col2);
    let left = floods - 2;
    for (const of of [first, col2, col3]) for (let i = 0; i < 2 && left > 0; i++, left--) await split('-v', of);
    await t.notePanes();
    const c = await t.attach(200, 51);
    await sleep(1000);
    return await typeKeys(keys, c, { server: t.pid, client: c.pid });
  } finally {
    await t.stop();
  }
}

export interface BadgeRun {
  mode: 'screen' | 'hooks';
  working: number[];
  rest: number[];
  timeouts: number;
  /** Share of the run the server's main thread was runnable but waiting for a CPU (other load on the machine), %. */
  serverWaitPct: number;
  /** Server CPU over the run, % of a core. */
  serverPct: number;
}

/** The recorded payloads of Claude's hook events (test/fixtures/streams/claude-hooks.jsonl.gz), by event. */
function claudePayloads(): Map<string, Record<string, unknown>> {
  const url = new URL('../../test/fixtures/streams/claude-hooks.jsonl.gz', import.meta.url);
  const m = new Map<string, Record<string, unknown>>();
  for (const l of gunzipSync(readFileSync(fileURLToPath(url))).toString('utf8').trim().split('\n').slice(1)) {
    const r = JSON.parse(l) as { hook?: string; payload?: Record<string, unknown> };
    if (r.hook && r.payload && !m.has(r.hook)) m.set(r.hook, r.payload);
  }
  return m;
}

/** `castellan hook claude EVENT` with the recorded payload on stdin, as Claude's hook runs it in the pane. */
function bridge(b: BenchEnv, s: CastellanServer, pane: string, event: string, payload: Record<string, unknown>): Promise<void> {
  return new Promise((resolve) => {
    const env = { ...b.env, HOME: s.home, XDG_STATE_HOME: join(s.home, 'state'), XDG_CONFIG_HOME: join(s.home, 'config'), CASTELLAN_SOCKET: s.socket, CASTELLAN_PANE_ID: pane, CASTELLAN_ENV: '1' };
    const p = spawn(process.execPath, [join(b.root, 'bin', 'castellan.js'), 'hook', 'claude', event], { env, stdio: ['pipe', 'ignore', 'ignore'] });
    p.stdin.end(JSON.stringify(payload));
    const t = setTimeout(() => p.kill('SIGKILL'), 10_000);
    p.on('exit', () => {
      clearTimeout(t);
      resolve();
    });
  });
}

/**
 * Badge latency of one Claude pane of a herd whose other agents all work: a prompt's Enter to the `working` badge,
 * the turn's end (the fake replays the answer and its prompt) to the rest badge. hooks: the real bridge reports
 * UserPromptSubmit / Stop beside the screen, as Claude's hooks do.
 */
export async function badgeLatency(b: BenchEnv, h: Herd & { s: CastellanServer }, pane: string, mode: 'screen' | 'hooks', turns: number): Promise<BadgeRun> {
  // A hook report outranks the screen until the pane is reset: a screen-only run starts from a reset pane.
  if (mode === 'screen') await h.s.api.request('pane.reset_agent', { pane_id: pane });
  await sleep(1000);
  const sub = await h.s.subscribe(['pane_agent_status_changed']);
  const payloads = claudePayloads();
  const out: BadgeRun = { mode, working: [], rest: [], timeouts: 0, serverWaitPct: NaN, serverPct: NaN };
  const s0 = mainThreadSched(h.pid), c0 = cpuMs(h.pid), t00 = now();
  try {
    for (let i = 0; i < turns; i++) {
      const w = sub.next((e) => e.pane === pane && e.new === 'working', 5000);
      const t0 = now();
      await h.type(pane, '\r');
      if (mode === 'hooks') void bridge(b, h.s, pane, 'UserPromptSubmit', payloads.get('UserPromptSubmit') ?? {});
      const tw = await w;
      if (Number.isFinite(tw)) out.working.push(tw - t0);
      else out.timeouts++;
      await sleep(1500);
      const r = sub.next((e) => e.pane === pane && (e.new === 'idle' || e.new === 'done'), 8000);
      const t1 = now();
      await h.type(pane, 'r');
      if (mode === 'hooks') void bridge(b, h.s, pane, 'Stop', payloads.get('Stop') ?? {});
      const tr = await r;
      if (Number.isFinite(tr)) out.rest.push(tr - t1);
      else out.timeouts++;
      await sleep(1000);
    }
  } finally {
    sub.close();
  }
  const ms = now() - t00;
  out.serverWaitPct = ((mainThreadSched(h.pid).waitMs - s0.waitMs) / ms) * 100;
  out.serverPct = ((cpuMs(h.pid) - c0) / ms) * 100;
  return out;
}

export interface StormRun {
  events: number;
  seconds: number;
  serverPct: number;
  rssBeforeKiB: number;
  rssAfterKiB: number;
  /** RSS 10 s after the storm, and after the settle: what stayed. */
  rssSettledKiB: number;
}

/**
 * 1,000 SGR mouse-motion reports a second (10 every 10 ms) written into the attached client's terminal for `seconds`,
 * moving over the visible window, where the focused pane's program (a fake Claude) asked for any-motion reports.
 */
export async function mouseStorm(h: Herd, seconds = 10, perSec = 1000): Promise<StormRun> {
  await sleep(2000);
  const rssBeforeKiB = rssKiB(h.pid);
  const c0 = cpuMs(h.pid);
  const t0 = now();
  let n = 0;
  const end = t0 + seconds * 1000;
  let tick = t0;
  while (now() < end) {
    const due = Math.floor(((now() - t0) / 1000) * perSec);
    let batch = '';
    while (n < due) {
      const x = 2 + (n % 180), y = 2 + (Math.floor(n / 180) % 45);
      batch += `\x1b[<35;${x};${y}M`;
      n++;
    }
    if (batch) h.client.write(batch);
    tick += 10;
    await sleep(Math.max(0, tick - now()));
  }
  const ms = now() - t0;
  const serverPct = ((cpuMs(h.pid) - c0) / ms) * 100;
  const rssAfterKiB = rssKiB(h.pid);
  await sleep(10_000);
  return { events: n, seconds: ms / 1000, serverPct, rssBeforeKiB, rssAfterKiB, rssSettledKiB: rssKiB(h.pid) };
}

export const stats = (xs: number[]) => ({ median: median(xs), p90: quantile(xs, 0.9), max: xs.length ? Math.max(...xs) : NaN, n: xs.length });
