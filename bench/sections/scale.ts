// Issue 34's targets at scale: 64 panes (32 fake agents replaying real agents' recorded streams, 32 shells), castellan
// and tmux side by side in one run where tmux has the row. `npm run bench -- --scale` (or `--only scale`).
//
// Rows: server CPU with everything idle and with 8 agents working; detection and identification cost per pane; the
// idle CPU with 2,000 unrelated sleeping processes on the host; keystroke echo beside 8 flooding panes; badge latency
// of one agent while the 31 others work (screen only, and with Claude's hooks through the real bridge); a mouse-motion
// storm from the attached client (1,000 events/s for 10 s). `soak` (`--soak-hours H`): the simulated day (bench/scale/soak.ts).
import { loadavg } from 'node:os';
import type { BenchEnv } from '../lib/env.js';
import type { Row, SectionResult } from '../lib/report.js';
import { log, round, sleep } from '../lib/util.js';
import { detectionCost, drawnOffsets, identifyCost } from '../scale/detect-cost.js';
import { castellanHerd, sampleCpu, startWorking, stopWorking, tmuxHerd, type CpuWindow, type Herd } from '../scale/herd.js';
import { badgeLatency, echoBesideFloods, mouseStorm, stats, type BadgeRun, type StormRun } from '../scale/probes.js';
import { startSleepers } from '../scale/sleepers.js';
import { runSoak } from '../scale/soak.js';

const S = 'scale';
/** Longer than a fresh herd takes to settle its badges (recency 2 s, debounce 0.8 s, the fakes' start screens). */
const SETTLE_MS = 8000;
const SLEEPERS = 2000;
const MB = 1024;

interface SystemRun {
  startSeconds: number;
  idle: CpuWindow;
  /** The idle window again after the sleepers are gone: the change is measured against both. */
  idleAfter: CpuWindow;
  idleSleepers: CpuWindow;
  hostProcesses: number;
  working: CpuWindow;
  storm: StormRun;
  identify?: { without: ReturnType<typeof identifyCost>; with: ReturnType<typeof identifyCost> };
  /** One agent's badges with the other agents idle, then with the 31 others working (same run, same load). */
  badge?: Record<'alone' | 'busy', Record<'screen' | 'hooks', BadgeRun>>;
  load: number[];
}

async function measure(b: BenchEnv, sys: 'castellan' | 'tmux', seconds: number, turns: number): Promise<SystemRun> {
  const t0 = Date.now();
  const h: Herd = sys === 'castellan' ? await castellanHerd(b) : await tmuxHerd(b);
  const load: number[] = [];
  try {
    const startSeconds = (Date.now() - t0) / 1000;
    log(`scale ${sys}: 64 panes up in ${round(startSeconds, 1)} s`);
    await sleep(SETTLE_MS);
    load.push(loadavg()[0]);
    const idle = await sampleCpu(h.pid, h.client.pid, seconds);
    log(`scale ${sys}: idle server ${round(idle.serverPct, 3)} % (median sample ${round(idle.serverMedianPct, 3)} %)`);
    const agentPid = sys === 'castellan' ? (await (h as Awaited<ReturnType<typeof castellanHerd>>).s.panes()).find((p) => p.pane_id === h.panes[0].id)?.pid : undefined;
    const idWithout = agentPid ? identifyCost(agentPid) : undefined;
    const sl = await startSleepers(SLEEPERS);
    let idleSleepers: CpuWindow;
    let idWith: ReturnType<typeof identifyCost> | undefined;
    try {
      // Their start is load on the machine: the window opens once it has passed.
      await sleep(5000);
      idleSleepers = await sampleCpu(h.pid, h.client.pid, seconds);
      idWith = agentPid ? identifyCost(agentPid, 5) : undefined;
    } finally {
      await sl.stop();
    }
    await sleep(3000);
    const idleAfter = await sampleCpu(h.pid, h.client.pid, seconds);
    log(`scale ${sys}: idle with ${sl.hostProcesses} host processes: server ${round(idleSleepers.serverPct, 3)} %; after they went ${round(idleAfter.serverPct, 3)} %`);
    const busy = await startWorking(h, 8);
    await sleep(2000);
    load.push(loadavg()[0]);
    const working = await sampleCpu(h.pid, h.client.pid, seconds);
    log(`scale ${sys}: 8 working: server ${round(working.serverPct, 2)} % (median sample ${round(working.serverMedianPct, 2)} %)`);
    await stopWorking(h, busy);
    let badge: SystemRun['badge'];
    if (sys === 'castellan') {
      const ch = h as Awaited<ReturnType<typeof castellanHerd>>;
      const agents = h.panes.filter((p) => p.agent);
      const target = agents.filter((p) => p.agent === 'claude').at(-1)!.id;
      const others = agents.filter((p) => p.id !== target).map((p) => p.id);
      // What is measured is Claude's rules at work: a pane castellan did not identify would time its generic reader.
      const who = await ch.s.api.request<{ identification?: { agent?: string } }>('pane.explain', { pane_id: target });
      if (who.identification?.agent !== 'claude') throw new Error(`scale: ${target} is not identified as claude (${JSON.stringify(who.identification)})`);
      await sleep(3000);
      const runBoth = async (label: string) => {
        const r = { screen: await badgeLatency(b, ch, target, 'screen', turns), hooks: await badgeLatency(b, ch, target, 'hooks', turns) };
        for (const m of ['screen', 'hooks'] as const) {
          log(`scale badge ${label} ${m}: working ${r[m].working.map((x) => round(x, 0)).join(' ')} ms; rest ${r[m].rest.map((x) => round(x, 0)).join(' ')} ms; server CPU ${round(r[m].serverPct, 1)} %, waited for a CPU ${round(r[m].serverWaitPct, 0)} % of the time`);
        }
        return r;
      };
      const alone = await runBoth('alone');
      // Every agent but the measured one works: 31 spinners.
      for (const p of others) await h.type(p, 'w');
      await sleep(3000);
      load.push(loadavg()[0]);
      const busyRuns = await runBoth('31 working');
      badge = { alone, busy: busyRuns };
      await stopWorking(h, others);
      await sleep(3000);
    }
    load.push(loadavg()[0]);
    const storm = await mouseStorm(h, 10, 1000);
    log(`scale ${sys}: mouse storm ${storm.events} events in ${round(storm.seconds, 1)} s: server ${round(storm.serverPct, 2)} %, RSS ${round(storm.rssBeforeKiB / MB, 1)} → ${round(storm.rssAfterKiB / MB, 1)} → ${round(storm.rssSettledKiB / MB, 1)} MB`);
    return { startSeconds, idle, idleAfter, idleSleepers, hostProcesses: sl.hostProcesses, working, storm, identify: idWithout && idWith ? { without: idWithout, with: idWith } : undefined, badge, load: load.map((x) => round(x, 2)) };
  } finally {
    await h.stop();
  }
}

export async function scale(b: BenchEnv): Promise<SectionResult> {
  const seconds = b.opts.quick ? 5 : 10;
  const turns = b.opts.quick ? 3 : 5;
  const c = await measure(b, 'castellan', seconds, turns);
  const t = await measure(b, 'tmux', seconds, turns);
  const costs = [];
  for (const a of ['claude', 'codex', 'gemini', 'pi']) costs.push(await detectionCost(a));
  const echoSamples = b.opts.quick ? 60 : 150;
  const ec = await echoBesideFloods(b, 'castellan', 8, echoSamples);
  const et = await echoBesideFloods(b, 'tmux', 8, echoSamples);
  log(`scale echo beside 8 floods: castellan median ${round(ec.median)} p99 ${round(ec.p99)} ms; tmux median ${round(et.median)} p99 ${round(et.p99)} ms`);
  const rows: Row[] = [
    { section: S, metric: 'load average (1 min) during the run', unit: 'load', castellan: Math.max(...c.load), tmux: Math.max(...t.load), digits: 1, note: 'shared machine: every figure is an upper bound' },
    { section: S, metric: '64 panes started (32 agents, 32 shells)', unit: 's', castellan: c.startSeconds, tmux: t.startSeconds, digits: 1 },
    { section: S, metric: `server CPU, all idle (mean over ${seconds} s)`, unit: '% core', castellan: c.idle.serverPct, tmux: t.idle.serverPct, digits: 3, target: { max: 1 } },
    { section: S, metric: 'server CPU, all idle (median 500 ms sample)', unit: '% core', castellan: c.idle.serverMedianPct, tmux: t.idle.serverMedianPct, digits: 3 },
    { section: S, metric: 'client CPU, all idle', unit: '% core', castellan: c.idle.clientPct, tmux: t.idle.clientPct, digits: 3, note: 'tmux: server draws' },
    { section: S, metric: 'server CPU, 8 agents working (mean)', unit: '% core', castellan: c.working.serverPct, tmux: t.working.serverPct, digits: 2, target: { max: 10 } },
    { section: S, metric: 'server CPU, 8 agents working (median sample)', unit: '% core', castellan: c.working.serverMedianPct, tmux: t.working.serverMedianPct, digits: 2 },
    { section: S, metric: 'server RSS, 64 panes, 8 working', unit: 'MB', castellan: c.working.serverRssKiB / MB, tmux: t.working.serverRssKiB / MB, digits: 1 },
    ...costs.map((k): Row => ({ section: S, metric: `detection per working ${k.agent} pane (${round(k.runUs, 0)} µs/run x ${round(k.runsPerSec, 1)} runs/s)`, unit: '% core', castellan: k.pctPerPane, digits: 3 })),
    ...(c.identify
      ? [
          { section: S, metric: 'identification: foreground check (every detection run)', unit: 'µs', castellan: c.identify.without.fgUs, digits: 0 } as Row,
          { section: S, metric: `identification: process-tree read, ${c.hostProcesses - SLEEPERS} host processes`, unit: 'µs', castellan: c.identify.without.treeUs, digits: 0 } as Row,
          { section: S, metric: `identification: process-tree read, ${c.hostProcesses} host processes`, unit: 'µs', castellan: c.identify.with.treeUs, digits: 0, note: 'when the foreground changes, or 1/s on a drawing shell' } as Row,
        ]
      : []),
    { section: S, metric: `server CPU, all idle, ${SLEEPERS} sleeping processes on the host (mean)`, unit: '% core', castellan: c.idleSleepers.serverPct, tmux: t.idleSleepers.serverPct, digits: 3, note: 'a 60 s snapshot write (~70 ms) may fall in a window' },
    // The steady state: the median 500 ms sample, with the sleepers against the mean of before and after them.
    { section: S, metric: `idle CPU change from ${SLEEPERS} host processes (median samples vs. before/after)`, unit: '% core', castellan: c.idleSleepers.serverMedianPct - (c.idle.serverMedianPct + c.idleAfter.serverMedianPct) / 2, tmux: t.idleSleepers.serverMedianPct - (t.idle.serverMedianPct + t.idleAfter.serverMedianPct) / 2, digits: 3, target: { max: 0.5 } },
    { section: S, metric: `idle CPU change from ${SLEEPERS} host processes (means)`, unit: '% core', castellan: c.idleSleepers.serverPct - (c.idle.serverPct + c.idleAfter.serverPct) / 2, tmux: t.idleSleepers.serverPct - (t.idle.serverPct + t.idleAfter.serverPct) / 2, digits: 3, note: 'difference of means' },
    { section: S, metric: 'keystroke echo beside 8 floods: median', unit: 'ms', castellan: ec.median, tmux: et.median, digits: 1 },
    { section: S, metric: 'keystroke echo beside 8 floods: p99', unit: 'ms', castellan: ec.p99, tmux: et.p99, digits: 1, target: { ratioMax: 2 } },
    { section: S, metric: 'keystroke echo beside 8 floods: keys / timeouts', unit: 'n', castellan: ec.n, tmux: et.n, digits: 0, note: `${ec.timeouts} / ${et.timeouts} t/o` },
  ];
  // The badge is held to the moment the fake's screen shows the state (the recording's own drawing time is not lag).
  const drawn = await drawnOffsets('claude');
  rows.push({ section: S, metric: `badge probe: Claude's recording shows working / rest ${round(drawn.working, 0)} / ${round(drawn.rest, 0)} ms after the key`, unit: 'ms', castellan: drawn.rest, digits: 0, note: 'subtracted below' });
  for (const when of ['alone', 'busy'] as const) {
    for (const mode of ['screen', 'hooks'] as const) {
      const r = c.badge?.[when][mode];
      if (!r) continue;
      // A hook that reports before the screen draws is on time: 0 (as scripts/badge-score.ts counts it).
      const w = stats(r.working.map((x) => Math.max(0, x - drawn.working))), z = stats(r.rest.map((x) => Math.max(0, x - drawn.rest)));
      const label = when === 'alone' ? 'other agents idle' : '31 agents working';
      // The goals are issue 17's for one agent; with the herd they hold for the herd.
      const goal = (max: number) => (when === 'busy' ? { target: { max } } : {});
      const wait = `server waited for a CPU ${round(r.serverWaitPct, 0)} % of the time${r.timeouts ? `; ${r.timeouts} timeouts` : ''}`;
      rows.push(
        { section: S, metric: `badge, ${label}, ${mode}: working (median of ${w.n}; max ${round(w.max, 0)})`, unit: 'ms', castellan: w.median, digits: 0, note: wait, ...goal(100) },
        { section: S, metric: `badge, ${label}, ${mode}: rest (median of ${z.n}; max ${round(z.max, 0)})`, unit: 'ms', castellan: z.median, digits: 0, note: `server CPU ${round(r.serverPct, 1)} %`, ...goal(300) },
      );
    }
  }
  rows.push(
    { section: S, metric: `mouse storm: server CPU (${c.storm.events} motion events, ${round(c.storm.seconds, 0)} s)`, unit: '% core', castellan: c.storm.serverPct, tmux: t.storm.serverPct, digits: 2, target: { max: 15 } },
    { section: S, metric: 'mouse storm: RSS 10 s after, over before', unit: 'MB', castellan: (c.storm.rssSettledKiB - c.storm.rssBeforeKiB) / MB, tmux: (t.storm.rssSettledKiB - t.storm.rssBeforeKiB) / MB, digits: 1, target: { max: 4, text: 'none stays (< 4 MB)' } },
  );
  const raw: Record<string, unknown> = { castellan: c, tmux: t, detection: costs, echo: { castellan: ec, tmux: et } };
  return { rows, raw };
}

/** The simulated day (`--soak-hours H`, 8 by default with --only soak): its counters as rows. */
export async function soak(b: BenchEnv): Promise<SectionResult> {
  const r = await runSoak({ root: b.root, tmp: b.tmp, hours: b.opts.soakHours ?? 8, log });
  return { rows: soakRows(r), raw: r };
}

function soakRows(r: Awaited<ReturnType<typeof runSoak>>): Row[] {
  const h = `soak, ${r.hours} simulated h in ${round(r.seconds / 60, 1)} min`;
  return [
    { section: S, metric: `${h}: RSS growth after hour 1 (${r.rssMB.map((x) => round(x, 0)).join(' ')} MB)`, unit: 'MB', castellan: r.rssGrowthMB, digits: 1, target: { max: r.rssSlackMB, text: `no growth (< ${r.rssSlackMB} MB)` } },
    { section: S, metric: `${h}: fds at the end over hour 1`, unit: 'n', castellan: r.fdGrowth, digits: 0, target: { max: 0 } },
    { section: S, metric: `${h}: timers + handles at the end over hour 1`, unit: 'n', castellan: r.handleGrowth, digits: 0, target: { max: 0 } },
    { section: S, metric: `${h}: process listeners at the end over hour 1`, unit: 'n', castellan: r.listenerGrowth, digits: 0, target: { max: 0 } },
    { section: S, metric: `${h}: snapshots loadable`, unit: 'n', castellan: r.snapshotsLoaded, digits: 0, note: `of ${r.snapshotsTaken}`, target: { min: r.snapshotsTaken } },
  ];
}
