// 1. Pane throughput: a pane cats the ANSI file; wall time from the trigger (Enter) to the end as castellan / tmux see it.
//
// Each pane runs `sh -c 'read _; cat FILE; printf MARKER'`, so the program is waiting when the clock starts and the
// run starts with an Enter: typed into the client pty when a client is attached, else pane.send_text / send-keys.
// End of a run:
//   server end: castellan: its `pane_exited` event for the pane (the program exits right after the marker; the event
//               comes after every byte is parsed, and after castellan has seen the exit: the exit section measures
//               that lag); the marker is then checked on the pane's screen.
//               tmux: `tmux wait-for -S` run by the pane after cat (tmux may still hold <= one pty buffer unparsed).
//               Until Dec 6 castellan's end was the marker polled with pane.read every 10 ms, while tmux's is an
//               event it is sent: the polling cost castellan's server ~200 ms of CPU and ~215 ms of wall time in a
//               2.5 s no-client run (medians of 4 interleaved runs: 3072 vs 2871 ms CPU, 2591 vs 2376 ms wall).
//   client end: the marker line appears in the attached client's output (what a user would see).
// CPU of the server and client processes over the run comes from /proc (pane programs not included).
import { CastellanServer } from '../lib/castellan.js';
import type { BenchEnv } from '../lib/env.js';
import { cpuMs, mainThreadSched } from '../lib/proc.js';
import type { Row, SectionResult } from '../lib/report.js';
import { TmuxServer } from '../lib/tmux.js';
import { log, median, MiB, now, quantile, round, shq, sleep } from '../lib/util.js';

export interface ThroughputRun {
  system: 'castellan' | 'tmux';
  client: boolean;
  serverMs: number;
  clientMs?: number;
  serverCpuMs: number;
  clientCpuMs?: number;
  /** Time from the trigger to the CPU readings (the denominator of the CPU %). */
  cpuWindowMs: number;
  /** Server main thread over the run: on a CPU, runnable but waiting for a CPU (machine load), asleep (idle). */
  serverMain?: { runMs: number; waitMs: number; sleepMs: number };
  /** Client output during the run. */
  clientBytes?: number;
  clientFrames?: number;
  /** castellan: frames painted in the first 200 ms after the Enter (input-priority frames are sent at once). */
  burstFrames?: number;
}

const TIMEOUT = 180_000;
const SCRIPT = 'read _; cat "$0"; printf "\\n%s%s\\n" "$1" "$2"';

function mainDelta(a: { runMs: number; waitMs: number }, b: { runMs: number; waitMs: number }, windowMs: number) {
  const runMs = b.runMs - a.runMs;
  const waitMs = b.waitMs - a.waitMs;
  return { runMs: round(runMs, 1), waitMs: round(waitMs, 1), sleepMs: round(windowMs - runMs - waitMs, 1) };
}

async function castellanRun(b: BenchEnv, withClient: boolean): Promise<ThroughputRun> {
  const tag = `${process.pid}x${b.nextId()}`;
  // The marker is split over two arguments so the pane title / command line can never contain it whole.
  // remain_on_exit: the pane's program exits 0 after the marker, which closes its pane (as tmux does) before the
  // marker can be read from its screen; tmux's pane is kept by its `exec sleep`.
  const s = await CastellanServer.start(b, { cols: 202, rows: 53, command: ['sh', '-c', SCRIPT, b.file, 'BENCH-END-', tag], profile: b.opts.cpuProf, config: '[session]\nremain_on_exit = "on"\n' });
  try {
    const sub = await s.subscribe(['pane_exited']);
    const client = withClient ? await s.attach(202, 53, { profile: b.opts.cpuProf }) : undefined;
    if (!client) await sleep(300);
    const [pane] = await s.panes();
    if (pane.cols !== 200 || pane.rows !== 50) throw new Error(`castellan pane is ${pane.cols}x${pane.rows}, expected 200x50`);
    const exitEvent = sub.next((e) => e.pane === pane.pane_id, TIMEOUT);
    const clientDone = client?.waitFor(`BENCH-END-${tag}`, TIMEOUT);
    const cpu0 = cpuMs(s.pid);
    const m0 = mainThreadSched(s.pid);
    const ccpu0 = client ? cpuMs(client.pid) : NaN;
    const bytes0 = client?.bytes ?? 0;
    const frames0 = client?.syncFrames ?? 0;
    let burstFrames: number | undefined;
    const burst = client ? setTimeout(() => (burstFrames = client.syncFrames - frames0), 200) : undefined;
    const t0 = now();
    if (client) client.write('\r');
    else await s.api.request('pane.send_text', { pane_id: pane.pane_id, text: '\r' });
    const tServer = await exitEvent;
    const tClient = clientDone ? await clientDone : NaN;
    const cpu1 = cpuMs(s.pid);
    const m1 = mainThreadSched(s.pid);
    const ccpu1 = client ? cpuMs(client.pid) : NaN;
    const cpuWindowMs = now() - t0;
    clearTimeout(burst);
    sub.close();
    if (!Number.isFinite(tServer)) throw new Error('castellan: the pane never exited');
    if (!Number.isFinite(await s.pollScreen(pane.pane_id, `BENCH-END-${tag}`, 10, 5000))) throw new Error('castellan: the marker is not on the pane screen');
    if (client && !Number.isFinite(tClient)) throw new Error('castellan: the client never showed the end marker');
    return {
      system: 'castellan',
      client: withClient,
      serverMs: tServer - t0,
      clientMs: client ? tClient - t0 : undefined,
      serverCpuMs: cpu1 - cpu0,
      cpuWindowMs,
      serverMain: mainDelta(m0, m1, cpuWindowMs),
      clientCpuMs: client ? ccpu1 - ccpu0 : undefined,
      clientBytes: client ? client.bytes - bytes0 : undefined,
      clientFrames: client ? client.syncFrames - frames0 : undefined,
      burstFrames,
    };
  } finally {
    await s.stop();
  }
}

async function tmuxRun(b: BenchEnv, withClient: boolean): Promise<ThroughputRun> {
  const tag = `${process.pid}x${b.nextId()}`;
  const script = SCRIPT.replace('"$0"', shq(b.file)).replace('"$1" "$2"', `BENCH-END- ${tag}`);
  const t = await TmuxServer.start(b, { cols: 200, rows: 50, command: (name) => `${script}; tmux -L ${name} wait-for -S done-${tag}; exec sleep 100000` });
  try {
    const client = withClient ? await t.attach(200, 51) : undefined;
    if (!client) await sleep(300);
    const [pane] = await t.panes();
    if (pane.cols !== 200 || pane.rows !== 50) throw new Error(`tmux pane is ${pane.cols}x${pane.rows}, expected 200x50`);
    const serverDone = t.waitFor(`done-${tag}`);
    const clientDone = client?.waitFor(`BENCH-END-${tag}`, TIMEOUT);
    await sleep(50); // the wait-for client must be waiting before the pane can signal it (it would also work after)
    const cpu0 = cpuMs(t.pid);
    const m0 = mainThreadSched(t.pid);
    const ccpu0 = client ? cpuMs(client.pid) : NaN;
    const bytes0 = client?.bytes ?? 0;
    const t0 = now();
    if (client) client.write('\r');
    else await t.cmd('send-keys', '-t', pane.id, 'Enter');
    const tServer = await serverDone;
    const tClient = clientDone ? await clientDone : NaN;
    const cpu1 = cpuMs(t.pid);
    const m1 = mainThreadSched(t.pid);
    const ccpu1 = client ? cpuMs(client.pid) : NaN;
    const cpuWindowMs = now() - t0;
    if (client && !Number.isFinite(tClient)) throw new Error('tmux: the client never showed the end marker');
    return {
      system: 'tmux',
      client: withClient,
      serverMs: tServer - t0,
      clientMs: client ? tClient - t0 : undefined,
      serverCpuMs: cpu1 - cpu0,
      cpuWindowMs,
      serverMain: mainDelta(m0, m1, cpuWindowMs),
      clientCpuMs: client ? ccpu1 - ccpu0 : undefined,
      clientBytes: client ? client.bytes - bytes0 : undefined,
    };
  } finally {
    await t.stop();
  }
}

export async function throughput(b: BenchEnv): Promise<SectionResult> {
  const runs: ThroughputRun[] = [];
  const mb = b.fileBytes / MiB;
  for (let i = 0; i < b.opts.runs; i++) {
    // Interleaved, so drift (thermal, other load) hits both alike.
    for (const withClient of [true, false]) {
      for (const sys of ['castellan', 'tmux'] as const) {
        const r = sys === 'castellan' ? await castellanRun(b, withClient) : await tmuxRun(b, withClient);
        runs.push(r);
        const end = r.clientMs ?? r.serverMs;
        log(`throughput ${sys.padEnd(9)} ${withClient ? 'client   ' : 'no client'} run ${i + 1}: server ${round(r.serverMs, 0)} ms${r.clientMs !== undefined ? `, client ${round(r.clientMs, 0)} ms` : ''} = ${round(mb / (end / 1000), 1)} MB/s`);
      }
    }
  }
  const pick = (sys: string, client: boolean) => runs.filter((r) => r.system === sys && r.client === client);
  const stat = (sys: string, client: boolean) => {
    const rs = pick(sys, client);
    const wall = rs.map((r) => r.clientMs ?? r.serverMs);
    const med = median(wall);
    return {
      runs: rs.length,
      medianMs: med,
      minMs: Math.min(...wall),
      maxMs: Math.max(...wall),
      mbps: mb / (med / 1000),
      serverEndMs: median(rs.map((r) => r.serverMs)),
      serverCpuPct: median(rs.map((r) => (r.serverCpuMs / r.cpuWindowMs) * 100)),
      serverCpuMsPerMB: median(rs.map((r) => r.serverCpuMs / mb)),
      clientCpuPct: client ? median(rs.map((r) => (r.clientCpuMs! / r.cpuWindowMs) * 100)) : undefined,
      clientCpuMsPerFrame: client && sys === 'castellan' ? median(rs.map((r) => r.clientCpuMs! / Math.max(1, r.clientFrames!))) : undefined,
      clientFramesPerSec: client && sys === 'castellan' ? median(rs.map((r) => r.clientFrames! / (r.clientMs! / 1000))) : undefined,
      clientKBps: client ? median(rs.map((r) => r.clientBytes! / 1024 / (r.clientMs! / 1000))) : undefined,
      p90Ms: quantile(wall, 0.9),
      bestMbps: mb / (Math.min(...wall) / 1000),
      /** MB parsed per second of server CPU: insensitive to other load on the machine. */
      mbPerCpuSecond: median(rs.map((r) => mb / (r.serverCpuMs / 1000))),
      /** Share of the run the server's main thread slept (not running, not waiting for a CPU): pipeline stalls. */
      serverSleepPct: median(rs.map((r) => (r.serverMain!.sleepMs / r.cpuWindowMs) * 100)),
      serverWaitPct: median(rs.map((r) => (r.serverMain!.waitMs / r.cpuWindowMs) * 100)),
      /** Wall time minus the time the server's main thread waited for a CPU held by other processes. */
      correctedMbps: median(rs.map((r) => mb / ((r.cpuWindowMs - r.serverMain!.waitMs) / 1000))),
      burstFrames: client && sys === 'castellan' ? median(rs.map((r) => r.burstFrames ?? NaN)) : undefined,
    };
  };
  const cc = stat('castellan', true), tc = stat('tmux', true), cn = stat('castellan', false), tn = stat('tmux', false);
  // Server CPU a client adds per frame: (server CPU with a client - without) / frames. Same bytes parsed in both.
  const frameMs = (() => {
    const withC = pick('castellan', true), noC = pick('castellan', false);
    const frames = median(withC.map((r) => r.clientFrames!));
    return (median(withC.map((r) => r.serverCpuMs)) - median(noC.map((r) => r.serverCpuMs))) / Math.max(1, frames);
  })();
  const S = 'throughput';
  const rows: Row[] = [
    { section: S, metric: `${round(mb, 0)} MB cat, 200x50, client attached (to client end)`, unit: 'MB/s', castellan: cc.mbps, tmux: tc.mbps, target: { ratioMin: 1.3 }, digits: 1, headline: `pane \`cat\`ting ${round(mb, 0)} MB of coloured text, the bench's pty client attached (reads at once)` },
    { section: S, metric: 'same, to server end (pane_exited / wait-for)', unit: 'MB/s', castellan: mb / (cc.serverEndMs / 1000), tmux: mb / (tc.serverEndMs / 1000), digits: 1 },
    { section: S, metric: 'no client attached (to server end)', unit: 'MB/s', castellan: cn.mbps, tmux: tn.mbps, target: { ratioMin: 1 }, digits: 1, headline: 'same, no client attached' },
    { section: S, metric: 'fastest run, client attached', unit: 'MB/s', castellan: cc.bestMbps, tmux: tc.bestMbps, digits: 1 },
    { section: S, metric: 'fastest run, no client', unit: 'MB/s', castellan: cn.bestMbps, tmux: tn.bestMbps, digits: 1 },
    { section: S, metric: 'contention-corrected*, client attached', unit: 'MB/s', castellan: cc.correctedMbps, tmux: tc.correctedMbps, digits: 1 },
    { section: S, metric: 'contention-corrected*, no client', unit: 'MB/s', castellan: cn.correctedMbps, tmux: tn.correctedMbps, digits: 1 },
    { section: S, metric: 'MB per server CPU-second, client attached', unit: 'MB/cpu-s', castellan: cc.mbPerCpuSecond, tmux: tc.mbPerCpuSecond, digits: 1 },
    { section: S, metric: 'MB per server CPU-second, no client', unit: 'MB/cpu-s', castellan: cn.mbPerCpuSecond, tmux: tn.mbPerCpuSecond, digits: 1 },
    { section: S, metric: 'server main thread asleep during run, client', unit: '% time', castellan: cc.serverSleepPct, tmux: tc.serverSleepPct, digits: 0 },
    { section: S, metric: 'server main thread asleep during run, no client', unit: '% time', castellan: cn.serverSleepPct, tmux: tn.serverSleepPct, digits: 0 },
    { section: S, metric: 'server waiting for a CPU (machine load), client', unit: '% time', castellan: cc.serverWaitPct, tmux: tc.serverWaitPct, digits: 0 },
    { section: S, metric: 'server waiting for a CPU (machine load), no client', unit: '% time', castellan: cn.serverWaitPct, tmux: tn.serverWaitPct, digits: 0 },
    { section: S, metric: 'server CPU while flooding, client attached', unit: '% core', castellan: cc.serverCpuPct, tmux: tc.serverCpuPct, digits: 0 },
    { section: S, metric: 'client CPU while flooding', unit: '% core', castellan: cc.clientCpuPct!, tmux: tc.clientCpuPct!, digits: 0, note: 'tmux: server draws' },
    { section: S, metric: 'server + client CPU while flooding', unit: '% core', castellan: cc.serverCpuPct + cc.clientCpuPct!, tmux: tc.serverCpuPct + tc.clientCpuPct!, digits: 0 },
    { section: S, metric: 'client output rate', unit: 'KB/s', castellan: cc.clientKBps!, tmux: tc.clientKBps!, digits: 0 },
    { section: S, metric: 'castellan frames painted by the client', unit: 'fps', castellan: cc.clientFramesPerSec!, digits: 1 },
    { section: S, metric: 'castellan frames in the 200 ms after the Enter', unit: 'frames', castellan: cc.burstFrames!, digits: 0, note: '30 fps = 6' },
  ];
  return { rows, raw: { fileBytes: b.fileBytes, runs, summary: { castellanClient: cc, tmuxClient: tc, castellanNoClient: cn, tmuxNoClient: tn, castellanServerMsPerFrame: frameMs } } };
}
