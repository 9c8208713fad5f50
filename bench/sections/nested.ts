// Throughput as a user has it: castellan's real client and tmux's real client, each inside a real terminal (an outer
// tmux, as a user runs them), a pane `cat`ting the bench's coloured file; interleaved rounds, medians and the ratio.
//
// The throughput section's client is a bench pty that reads everything at once: tmux then redraws for every change
// (16 MB/s to it on a quiet machine) and castellan's 30 fps frames cost nothing to draw. A terminal parses what it is
// sent, and tmux backs off when its terminal is behind, so that row does not say what a user sees. Here:
//   outer tmux A (a detached session: no status line; a 202x53 pane) runs `castellan` attached to a server whose pane is 200x50;
//   outer tmux B (a 200x51 pane) runs `tmux attach` to an inner tmux whose pane is 200x50.
// Each round types into the inner pane's shell, through its outer terminal and its client, a command that times `cat
// FILE` with `date` (the time a user's `time cat` shows: the pane program wrote the last byte; the multiplexer holds at
// most its read-ahead unparsed) and writes the ms to a file. Order alternates per round (ABBA), so drift hits both alike.
// Also per round: CPU of the inner server, its client and the outer terminal (/proc), and the bytes the outer terminal
// read from its pane (what the client drew, /proc/<pid>/io rchar). The load average is printed with each round: on a
// shared machine these are upper bounds, and only a quiet machine (load < 1 per core) gives a ratio to quote.
// Every server and client it starts is tracked (lib/cleanup.ts) and stopped, on error too.
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { basename, join } from 'node:path';
import { CastellanServer } from '../lib/castellan.js';
import type { BenchEnv } from '../lib/env.js';
import { cpuMs } from '../lib/proc.js';
import type { Row, SectionResult } from '../lib/report.js';
import { TmuxServer } from '../lib/tmux.js';
import { log, median, MiB, round, shq, sleep, waitUntil } from '../lib/util.js';

type Sys = 'castellan' | 'tmux';

export interface NestedRun {
  system: Sys;
  round: number;
  /** `cat FILE` as timed by the pane's shell. */
  catMs: number;
  serverCpuMs: number;
  clientCpuMs: number;
  outerCpuMs: number;
  /** Bytes the outer terminal read from its pane during the run (the client's drawing). */
  outerReadBytes: number;
  load1: number;
}

const TIMEOUT = 240_000;

/**
 * The file the panes cat: the bench's coloured file, or BENCH_NESTED_FILE (e.g. plain text, where tmux's parser is
 * ~3x cheaper per byte than on colour and castellan's is not: the ratio depends on what is printed).
 */
const catFile = (b: BenchEnv): string => process.env.BENCH_NESTED_FILE || b.file;

/** rchar of a process (bytes it read, any fd): the outer tmux reads little else than its pane during a run. */
function readBytes(pid: number): number {
  try {
    const m = /^rchar:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'));
    return m ? Number(m[1]) : NaN;
  } catch {
    return NaN;
  }
}

interface Setup {
  system: Sys;
  outer: TmuxServer;
  serverPid: number;
  clientPid: number;
  stop(): Promise<void>;
}

/** Outer tmux running a client of a castellan server whose pane (200x50) runs a shell. */
async function castellanSetup(b: BenchEnv): Promise<Setup> {
  const s = await CastellanServer.start(b, { cols: 202, rows: 53, command: ['sh'], profile: b.opts.cpuProf });
  let outer: TmuxServer | undefined;
  try {
    const env = `HOME=${shq(s.home)} XDG_STATE_HOME=${shq(join(s.home, 'state'))} XDG_CONFIG_HOME=${shq(join(s.home, 'config'))} CASTELLAN_SOCKET=${shq(s.socket)}`;
    outer = await TmuxServer.start(b, { cols: 202, rows: 53, command: `exec env -u TMUX ${env} ${shq(process.execPath)} ${shq(join(b.root, 'bin', 'castellan.js'))}` });
    const [op] = await outer.panes();
    // The client is attached once the server counts it.
    await waitUntil(async () => (await s.api.request<{ clients: number }>('ping', {})).clients > 0, 'the castellan client to attach', 15_000, 50);
    await sleep(500); // its first frame drawn
    const [pane] = await s.panes();
    if (pane.cols !== 200 || pane.rows !== 50) throw new Error(`castellan pane is ${pane.cols}x${pane.rows}, expected 200x50`);
    const o = outer;
    return { system: 'castellan', outer: o, serverPid: s.pid, clientPid: op.pid, stop: async () => { await o.stop(); await s.stop(); } };
  } catch (e) {
    await outer?.stop();
    await s.stop();
    throw e;
  }
}

/** Outer tmux running `tmux attach` to an inner tmux whose pane (200x50 under its status line) runs a shell. */
async function tmuxSetup(b: BenchEnv): Promise<Setup> {
  const inner = await TmuxServer.start(b, { cols: 200, rows: 51, command: 'sh' });
  let outer: TmuxServer | undefined;
  try {
    outer = await TmuxServer.start(b, { cols: 200, rows: 51, command: `exec env -u TMUX HOME=${shq(inner.home)} tmux -L ${inner.name} -f ${shq(inner.conf)} -u attach -t b` });
    const [op] = await outer.panes();
    await waitUntil(async () => (await inner.cmd('list-clients', '-F', '#{client_pid}')).trim() !== '', 'the inner tmux client to attach', 15_000, 50);
    const [pane] = await inner.panes();
    if (pane.cols !== 200 || pane.rows !== 50) throw new Error(`tmux pane is ${pane.cols}x${pane.rows}, expected 200x50`);
    const o = outer;
    return { system: 'tmux', outer: o, serverPid: inner.pid, clientPid: op.pid, stop: async () => { await o.stop(); await inner.stop(); } };
  } catch (e) {
    await outer?.stop();
    await inner.stop();
    throw e;
  }
}

async function oneRun(b: BenchEnv, st: Setup, round: number): Promise<NestedRun> {
  const res = join(b.tmp, `nested-${process.pid}-${b.nextId()}.ms`);
  rmSync(res, { force: true });
  // Typed into the inner shell through the outer terminal and the client, as a user types it.
  const line = `s=$(date +%s%N); cat ${shq(catFile(b))}; e=$(date +%s%N); echo $(( (e-s)/1000000 )) > ${shq(res)}`;
  await st.outer.cmd('send-keys', '-t', 'b', 'clear', 'Enter');
  await sleep(800);
  const s0 = cpuMs(st.serverPid), c0 = cpuMs(st.clientPid), o0 = cpuMs(st.outer.pid), r0 = readBytes(st.outer.pid);
  const load1 = loadavg()[0];
  await st.outer.cmd('send-keys', '-t', 'b', '-l', line);
  await st.outer.cmd('send-keys', '-t', 'b', 'Enter');
  const ms = await waitUntil(() => (existsSync(res) ? Number(readFileSync(res, 'utf8').trim()) || undefined : undefined), `${st.system}: the nested cat to end`, TIMEOUT, 50);
  // What the terminal still has to draw after cat ended is counted (a second is more than either needs at 30 fps).
  await sleep(1000);
  const run: NestedRun = {
    system: st.system,
    round,
    catMs: ms,
    serverCpuMs: cpuMs(st.serverPid) - s0,
    clientCpuMs: cpuMs(st.clientPid) - c0,
    outerCpuMs: cpuMs(st.outer.pid) - o0,
    outerReadBytes: readBytes(st.outer.pid) - r0,
    load1,
  };
  rmSync(res, { force: true });
  return run;
}

export async function nested(b: BenchEnv): Promise<SectionResult> {
  const mb = statSync(catFile(b)).size / MiB;
  const runs: NestedRun[] = [];
  const setups: Setup[] = [];
  try {
    setups.push(await castellanSetup(b));
    setups.push(await tmuxSetup(b));
    await sleep(1000);
    for (let i = 0; i < b.opts.runs; i++) {
      const order = i % 2 === 0 ? setups : [...setups].reverse();
      for (const st of order) {
        const r = await oneRun(b, st, i + 1);
        runs.push(r);
        log(`nested ${r.system.padEnd(9)} run ${i + 1}: cat ${round(r.catMs, 0)} ms = ${round(mb / (r.catMs / 1000), 1)} MB/s, server ${round(r.serverCpuMs, 0)} ms CPU, client ${round(r.clientCpuMs, 0)}, terminal ${round(r.outerCpuMs, 0)} ms CPU and ${round(r.outerReadBytes / 1024, 0)} KB read (load ${r.load1.toFixed(2)})`);
      }
    }
  } finally {
    for (const st of setups.reverse()) await st.stop();
  }
  const pick = (s: Sys) => runs.filter((r) => r.system === s);
  const med = (s: Sys, f: (r: NestedRun) => number) => median(pick(s).map(f));
  const loads = runs.map((r) => r.load1);
  const S = 'nested';
  const loadText = `load ${round(Math.min(...loads), 1)}-${round(Math.max(...loads), 1)}`;
  const rows: Row[] = [
    { section: S, metric: `${round(mb, 0)} MB cat, real client in a terminal (outer tmux), median of ${pick('castellan').length} (${loadText})`, unit: 'MB/s', castellan: mb / (med('castellan', (r) => r.catMs) / 1000), tmux: mb / (med('tmux', (r) => r.catMs) / 1000), target: { ratioMin: 1.3 }, digits: 1, headline: `${catFile(b) === b.file ? 'same' : `pane \`cat\`ting ${basename(catFile(b))}`}, real client in a real terminal (an outer tmux; ${loadText})` },
    { section: S, metric: 'same, fastest run', unit: 'MB/s', castellan: mb / (Math.min(...pick('castellan').map((r) => r.catMs)) / 1000), tmux: mb / (Math.min(...pick('tmux').map((r) => r.catMs)) / 1000), digits: 1 },
    { section: S, metric: 'same, slowest run', unit: 'MB/s', castellan: mb / (Math.max(...pick('castellan').map((r) => r.catMs)) / 1000), tmux: mb / (Math.max(...pick('tmux').map((r) => r.catMs)) / 1000), digits: 1 },
    { section: S, metric: 'server CPU per MB of pane output', unit: 'ms/MB', castellan: med('castellan', (r) => r.serverCpuMs) / mb, tmux: med('tmux', (r) => r.serverCpuMs) / mb, digits: 1 },
    { section: S, metric: 'client CPU per MB of pane output', unit: 'ms/MB', castellan: med('castellan', (r) => r.clientCpuMs) / mb, tmux: med('tmux', (r) => r.clientCpuMs) / mb, digits: 1, note: 'tmux: server draws' },
    { section: S, metric: 'outer terminal CPU per MB of pane output', unit: 'ms/MB', castellan: med('castellan', (r) => r.outerCpuMs) / mb, tmux: med('tmux', (r) => r.outerCpuMs) / mb, digits: 1 },
    { section: S, metric: 'bytes drawn to the terminal per MB of pane output', unit: 'KB/MB', castellan: med('castellan', (r) => r.outerReadBytes) / 1024 / mb, tmux: med('tmux', (r) => r.outerReadBytes) / 1024 / mb, digits: 1 },
  ];
  return { rows, raw: { file: catFile(b), loads, runs } };
}
