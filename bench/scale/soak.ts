// The simulated day: hours of a herd's life (agents starting, working, blocking, finishing; panes opened and closed;
// clients attaching and detaching; event subscribers coming and going) compressed onto an accelerated clock (one
// simulated minute = msPerHour / 60 real ms), against one real castellan server. At every hour's end the day goes
// back to its baseline (the long-lived panes, no client, the soak's own connection) and the server's counters are
// read: RSS and handles, timers and process listeners (ping's `resources`), open fds (/proc, Linux), and the
// session's snapshot, loaded as a restart would load it. Used by test/robustness/soak.test.ts (short) and
// `npm run bench -- --scale --soak-hours 8` (the day).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { resolvePaths } from '../../src/platform/paths.js';
import { loadSnapshot } from '../../src/restore/index.js';
import { CastellanServer } from '../lib/castellan.js';
import { scriptEnv } from '../lib/env.js';
import { Ndjson } from '../lib/ndjson.js';
import { prng, sleep, waitUntil } from '../lib/util.js';
import { AGENT_KINDS, FAKE_AGENT, SHELL } from './herd.js';

export interface SoakOptions {
  /** Directory with bin/castellan.js and dist/ (a build). */
  root: string;
  tmp: string;
  hours: number;
  /** Real ms per simulated hour (default 30 s: 8 hours in about 4 minutes). */
  msPerHour?: number;
  /** Allowed RSS growth after hour 1, MB (V8 moves a few MB between collections). */
  rssSlackMB?: number;
  log?: (m: string) => void;
}

export interface HourSample {
  hour: number;
  rss: number;
  heapUsed: number;
  fds: number;
  handles: Record<string, number>;
  handlesTotal: number;
  listeners: number;
  panes: number;
  snapshotLoaded: boolean;
}

export interface SoakResult {
  hours: number;
  seconds: number;
  samples: HourSample[];
  rssMB: number[];
  rssGrowthMB: number;
  rssSlackMB: number;
  fdGrowth: number;
  handleGrowth: number;
  listenerGrowth: number;
  snapshotsTaken: number;
  snapshotsLoaded: number;
  actions: number;
}

const fdCount = (pid: number): number => {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return NaN;
  }
};

interface Resources { rss: number; heap_used: number; handles: Record<string, number>; handles_total: number; process_listeners: number }

export async function runSoak(o: SoakOptions): Promise<SoakResult> {
  const log = o.log ?? (() => undefined);
  const msPerHour = o.msPerHour ?? 30_000;
  const minute = msPerHour / 60;
  const b = scriptEnv({ repo: o.root, tmp: o.tmp });
  const fake = (agent: string) => [process.execPath, FAKE_AGENT, agent, '--fast'];
  const t0 = Date.now();
  const s = await CastellanServer.start(b, { cols: 160, rows: 48, command: SHELL });
  const paths = resolvePaths({ env: { HOME: s.home, XDG_STATE_HOME: join(s.home, 'state'), XDG_CONFIG_HOME: join(s.home, 'config'), CASTELLAN_SOCKET: s.socket } });
  let actions = 0;
  const req = async <T = unknown>(method: string, params: Record<string, unknown>): Promise<T> => {
    actions++;
    return s.api.request<T>(method, params, 10_000);
  };
  const samples: HourSample[] = [];
  try {
    // The baseline: the first shell and one long-lived agent, idle.
    await req('pane.split', { pane_id: 'w1:p1', direction: 'right', command: fake('claude'), focus: false });
    const baseline = new Set((await s.panes()).map((p) => p.pane_id));
    for (let hour = 1; hour <= o.hours; hour++) {
      const rnd = prng(hour * 7919);
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
      const at = (min: number) => sleep(Math.max(0, min * minute));
      // Morning of the hour: a window with two agents, a shell beside them, a client and a subscriber.
      const w = await req<{ pane_id: string }>('window.new', { command: fake(pick(AGENT_KINDS)), focus: false });
      const a1 = w.pane_id;
      const a2 = (await req<{ pane_id: string }>('pane.split', { pane_id: a1, direction: 'right', command: fake(pick(AGENT_KINDS)), focus: false })).pane_id;
      const sh = (await req<{ pane_id: string }>('pane.split', { pane_id: a1, direction: 'down', command: SHELL, focus: false })).pane_id;
      const client = hour % 2 === 1 ? s.attach(160, 48).catch((e) => (log(`soak: attach failed: ${(e as Error).message}`), undefined)) : undefined;
      const sub = await Ndjson.connect(s.socket);
      await sub.request('events.subscribe', { types: ['pane_agent_status_changed', 'pane_exited'] });
      await at(2);
      // Work: prompts, a permission dialog answered, a turn finished, an agent that quits, a shell command.
      await req('pane.send_text', { pane_id: a1, text: '\r' });
      await req('pane.send_text', { pane_id: a2, text: 'w' });
      await req('pane.send_text', { pane_id: sh, text: 'for i in 1 2 3; do echo soak $i; done\r' });
      await at(10);
      await req('pane.send_text', { pane_id: a1, text: 'b' });
      await req('window.select', { window_id: w.pane_id.split(':')[0] }).catch(() => undefined);
      await at(5);
      await req('pane.send_text', { pane_id: a1, text: '\r' });
      await req('pane.send_text', { pane_id: a2, text: 'r' });
      await at(10);
      await req('pane.send_text', { pane_id: a1, text: 'r' });
      await req('pane.send_text', { pane_id: a2, text: 'q' });
      // A client that comes and goes; a second subscriber that waits and is dropped.
      const waiter = await Ndjson.connect(s.socket);
      void waiter.request('events.wait', { types: ['pane_agent_status_changed'], timeout_ms: 60_000 }, 70_000).catch(() => undefined);
      await at(10);
      waiter.close();
      const c = await client;
      if (c) await c.close();
      await at(5);
      // Evening: the hour's panes closed, what the agents reported cleared, back to the baseline.
      sub.close();
      for (const p of await s.panes()) if (!baseline.has(p.pane_id)) await req('pane.close', { pane_id: p.pane_id }).catch(() => undefined);
      await req('window.select', { window_id: 'w1' }).catch(() => undefined);
      await waitUntil(async () => (await s.panes()).length === baseline.size, 'the hour\'s panes to close', 15_000, 100);
      // Quiet: detection's timers end (recency 2 s + debounce), the snapshot writer settles.
      await sleep(3500);
      const r = (await s.api.request<{ resources: Resources; panes: number }>('ping', { resources: true }));
      const loaded = await loadSnapshot(paths);
      const sample: HourSample = {
        hour,
        rss: r.resources.rss,
        heapUsed: r.resources.heap_used,
        fds: fdCount(s.pid),
        handles: r.resources.handles,
        handlesTotal: r.resources.handles_total,
        listeners: r.resources.process_listeners,
        panes: r.panes,
        snapshotLoaded: !!loaded.loaded && loaded.loaded.snapshot.windows.length > 0,
      };
      samples.push(sample);
      log(`soak hour ${hour}: rss ${(sample.rss / 1048576).toFixed(1)} MB, heap ${(sample.heapUsed / 1048576).toFixed(1)} MB, fds ${sample.fds}, handles ${sample.handlesTotal} ${JSON.stringify(sample.handles)}, listeners ${sample.listeners}, snapshot ${sample.snapshotLoaded ? 'ok' : 'NOT loadable ' + (loaded.message ?? '')}`);
    }
  } finally {
    await s.stop();
  }
  const first = samples[0];
  const last = samples.slice(-2);
  const mb = (x: number) => x / 1048576;
  return {
    hours: o.hours,
    seconds: (Date.now() - t0) / 1000,
    samples,
    rssMB: samples.map((x) => mb(x.rss)),
    // The lower of the last two hours: a collection that has not yet run moves one sample, not two.
    rssGrowthMB: mb(Math.min(...last.map((x) => x.rss)) - first.rss),
    rssSlackMB: o.rssSlackMB ?? 8,
    fdGrowth: Math.max(...samples.map((x) => x.fds)) - first.fds,
    handleGrowth: Math.max(...samples.map((x) => x.handlesTotal)) - first.handlesTotal,
    listenerGrowth: Math.max(...samples.map((x) => x.listeners)) - first.listeners,
    snapshotsTaken: samples.length,
    snapshotsLoaded: samples.filter((x) => x.snapshotLoaded).length,
    actions,
  };
}
