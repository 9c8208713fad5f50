// Issue 31's faults, seen from the keyboard: while another machine's ssh is killed, its server is stopped (SIGSTOP) or
// restarted, or a machine never answers, keystroke echo in a local pane stays as fast as in a client with no machines
// at all (p99 within 1.5x). The two clients are measured interleaved, key for key, so both see the same load. The far
// side (sshd, its sessions, the remote server) runs at nice 19: on a real network it is another host's CPU, here it
// would be ours; every ssh client and castellan process on this side keeps its normal priority.
// The tests are two files (echo-faults-link, echo-faults-server): with a measurement taken thrice under load, one file
// of four would come near the runner's 3 minutes a file.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import net from 'node:net';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { loadNote } from '../support/load.js';
import { sshdSkipReason } from '../support/sshd.js';
import { BIN, makeTempEnv, type TempEnv } from '../support/temp-env.js';
import { startAttached, type TermHarness } from '../support/term-harness.js';
import { waitFor } from '../support/wait-for.js';
import { interleavedEcho, p99 } from './echo-probe.js';
import { type Machines, startMachines } from './fixture.js';

// What machines add to local echo does not depend on how castellan asks about processes, and under the portable
// backend (the CI's second pass) both clients' p99 swings 16-62 ms with ps and lsof beside them: the comparison is the
// main pass's (/proc).
export const skip = sshdSkipReason() ?? (process.env.CASTELLAN_PLATFORM_BACKEND === 'portable' ? 'measured in the pass with /proc: under the portable backend ps and lsof swamp what machines add' : undefined);
const KEYS = 300;

/** The far side runs low (nice 19), as if on another host: loopback puts it on this machine's two cores. */
const REMOTE_NICE = 19;

/** `castellan ARGS` in the remote world, at the remote's priority (a server it forks keeps it). */
export function remoteCli(m: Machines, ...args: string[]): Promise<number | null> {
  const child = spawn('nice', ['-n', String(REMOTE_NICE), process.execPath, BIN, ...args], { env: m.remote.env, cwd: m.remote.home, stdio: 'ignore' });
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

export function background(env: TempEnv, args: string[]): ChildProcess {
  const child = spawn(process.execPath, [BIN, ...args], { env: env.env, cwd: env.home, stdio: 'ignore' });
  env.onCleanup(() => child.kill('SIGKILL'));
  return child;
}

/** An attached client whose focused pane runs cat (the tty echoes each key). */
async function catClient(env: TempEnv): Promise<TermHarness> {
  const h = await startAttached(env, { timeoutMs: 30_000 });
  env.onCleanup(() => h.kill());
  await env.call('pane.send_text', { pane_id: 'w1:p1', text: 'exec cat', enter: true });
  await waitFor(async () => (await env.call<{ panes: Array<{ command?: string[]; title?: string }> }>('pane.list')).panes.some((p) => JSON.stringify(p).includes('cat')), { timeoutMs: 15_000, message: 'cat to run in the pane' });
  return h;
}

/**
 * A world with machine `box` (and whatever `setup` adds) and a client attached there, beside a world with no machines
 * and a client doing the same things: a script waiting on a pane all along (on box / here), the chooser opened and
 * closed before and again in the middle of the keys (in the first, its look at every machine goes on in the
 * background). Then `fault` while keys are typed: what is compared is what the machines add, nothing else.
 */
export async function echoDuring(t: { after(fn: () => unknown): void }, name: string, fault: (m: Machines, bare: TempEnv) => Promise<unknown>, setup?: (m: Machines) => Promise<unknown>): Promise<void> {
  const m = await startMachines(t, { localEnv: { CASTELLAN_MACHINE_PROBE_MS: '1000' }, remoteNice: REMOTE_NICE });
  const bare = makeTempEnv();
  t.after(() => bare.cleanup());
  assert.equal(await remoteCli(m, 'server', 'start'), 0);
  await m.local.cli(['machine', 'add', 'box', 'castellan-test']);
  await setup?.(m);
  const base = await catClient(bare);
  const probe = await catClient(m.local);
  background(m.local, ['herd', 'wait', '--machine', 'box', '--pane', 'w1:p1', '--status', 'blocked', '--timeout-ms', '120000']);
  background(bare, ['herd', 'wait', '--pane', 'w1:p1', '--status', 'blocked', '--timeout-ms', '120000']);
  for (const [h, row] of [[probe, /default@box/], [base, /choose a pane/]] as const) {
    h.prefix('s');
    await h.waitForText(row, { timeoutMs: 15_000 });
    h.write('q');
    await h.waitForNoText(row, { timeoutMs: 10_000 });
  }
  // 1.5x is the bar, but not below the measurement's own floor: two identical clients with no machines at all, measured
  // this way while a 300 ms CPU burst runs, differed at p99 by up to 1.79x and +7.6 ms on a quiet 2-core box. So the
  // bound is 1.5x or 12 ms over the client with no machines, whichever is larger. That still catches what this exists to
  // catch: a client that waits on a host (a stall is hundreds of ms to seconds; an injected 1.5 s stall read 1,151 ms).
  // Past one runnable process per core the floor is a stall, not a burst: now and then a process that wakes waits about
  // 100 ms for a CPU. Beside two busy loops (load 2.3-3.9), every key around the fault timed: staircases of 100, 75,
  // 50, 25 ms (the keys typed during one stall), in the client with no machines as often as in the other, seldom in
  // both at once; a bare Node timer beside the same loops slept 100-174 ms five times in 8 s. One staircase puts a
  // client's p99 (the third worst of 300 keys) near 50 ms. So past one process per core the bound is 2.5x or 60 ms over
  // the client with no machines: room for one stall, not for a host. (The old threshold, twice the cores, kept the quiet
  // bound at load 3: a fresh-clone CI read 42.6 against 14.1 ms there, three measurements running.) The load average
  // trails by a minute, so the CPUs' own busy share during the measurement counts too: beside two other test files
  // starting up, the load average read 1.0-1.6 while the client with no machines read 74.6 and 41.9 ms.
  // A measurement over the bound is taken again, the fault applied again, up to three in all: a client that waits on a
  // host is over it every time, while a stall beside the test seldom is thrice. (On two
  // cores the ssh this side runs for the fault, key exchange included, shares the CPU with the client that has
  // machines: "never answers" read 33.1 ms against a bound of 27.2 once in a fresh-clone CI at load 2.7.)
  for (let attempt = 1; ; attempt++) {
    const before = cpuTimes();
    const r = await interleavedEcho(base, probe, KEYS, () => fault(m, bare), '\x02sq');
    const used = busyShare(before);
    const lost = r.probe.lost ?? 0;
    const pb = p99(r.base);
    const pp = p99(r.probe);
    const busy = loadavg()[0] > availableParallelism() || used > BUSY_SHARE;
    const bound = Math.max((busy ? 2.5 : 1.5) * pb, pb + (busy ? 60 : 12));
    const note = `${name}: ${r.probe.length} keys each, echo p99 ${pp.toFixed(1)} ms with the fault vs ${pb.toFixed(1)} ms with no machines (bound ${bound.toFixed(1)}; ${loadNote()}, CPUs ${Math.round(used * 100)} % busy; measurement ${attempt})`;
    console.log(`# ${note}`);
    assert.equal(lost, 0, `${lost} keys never echoed during the fault; ${note}`);
    assert.equal(r.base.lost ?? 0, 0, 'every key echoed in the client with no machines');
    if (pp <= bound || attempt === 3) {
      assert.ok(pp <= bound, note);
      return;
    }
  }
}

/**
 * Past this share of every core busy during a measurement, the machine is loaded (whatever the load average says). The
 * test alone keeps them 28-34 % busy; beside two other test files 53-62 %, where the client with no machines read p99
 * 111 and 121 ms in one run.
 */
const BUSY_SHARE = 0.5;

/** Busy and total CPU time of the whole machine so far (ms, every core): os.cpus(), on Linux and macOS alike. */
function cpuTimes(): { busy: number; total: number } {
  let busy = 0;
  let total = 0;
  for (const c of cpus()) {
    const t = c.times;
    busy += t.user + t.nice + t.sys + t.irq;
    total += t.user + t.nice + t.sys + t.irq + t.idle;
  }
  return { busy, total };
}

/** The share of the machine's CPU time that was busy since `before`. */
function busyShare(before: { busy: number; total: number }): number {
  const now = cpuTimes();
  return now.total > before.total ? (now.busy - before.busy) / (now.total - before.total) : 0;
}

/**
 * Every ssh client started from the local world (any depth under this test's processes). Read from /proc without
 * blocking: this process is also the one timing the echoes, and a synchronous walk of /proc (tens of ms, more under
 * load) would stall its own reading of the keys in flight and count that as the client's delay.
 */
export async function allSsh(): Promise<number[]> {
  const procs = new Map<number, { ppid: number; argv0: string }>();
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = await readFile(`/proc/${name}/stat`, 'utf8');
      const argv0 = (await readFile(`/proc/${name}/cmdline`, 'utf8')).split('\0')[0];
      procs.set(Number(name), { ppid: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]), argv0 });
    } catch {
      /* gone */
    }
  }
  const mine = new Set([process.pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, p] of procs) {
      if (!mine.has(pid) && mine.has(p.ppid)) {
        mine.add(pid);
        grew = true;
      }
    }
  }
  return [...mine].filter((pid) => procs.get(pid)?.argv0.endsWith('ssh'));
}
