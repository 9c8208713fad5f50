// Reading other processes from /proc: CPU time, scheduler waits, RSS, liveness (Linux only).
import { readdirSync, readFileSync } from 'node:fs';

const CLK_TCK = 100; // USER_HZ on Linux

function statFields(pid: number): string[] | undefined {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may contain spaces.
    return s.slice(s.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/**
 * CPU time (user + system) of a whole process in ms. Uses the per-thread scheduler runtime
 * (/proc/<pid>/task/<tid>/schedstat, nanoseconds) because utime/stime are counted in 10 ms ticks,
 * too coarse for "idle" measurements; falls back to the ticks when schedstat is unreadable. One source
 * is used throughout (mixing them makes deltas jump). A thread that exits inside a measurement window
 * takes its time with it; Node's and tmux's threads live as long as the process.
 */
export function cpuMs(pid: number): number {
  let ns = 0;
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const s = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8');
      ns += Number(s.split(' ')[0]);
    }
    return ns / 1e6;
  } catch {
    return cpuTicksMs(pid);
  }
}

/**
 * The main thread's scheduler accounting in ms: time on a CPU, and time runnable but waiting for one (other
 * load on the machine). Over a window, window - run - wait is time the thread slept (waited for I/O or timers).
 */
export function mainThreadSched(pid: number): { runMs: number; waitMs: number } {
  try {
    const [run, wait] = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ').map(Number);
    return { runMs: run / 1e6, waitMs: wait / 1e6 };
  } catch {
    return { runMs: NaN, waitMs: NaN };
  }
}

/** utime + stime in ms (10 ms resolution), including threads that already exited. */
export function cpuTicksMs(pid: number): number {
  const f = statFields(pid);
  return f ? ((Number(f[11]) + Number(f[12])) * 1000) / CLK_TCK : NaN;
}

/** Resident set size in KiB (VmRSS). */
export function rssKiB(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : NaN;
  } catch {
    return NaN;
  }
}

/** Memory of a process in KiB, from /proc/PID/smaps_rollup: RSS, USS (private pages) and RSS from files (RSS - Anonymous). */
export interface Mem {
  rssKiB: number;
  ussKiB: number;
  /** Pages mapped from files (the node binary, shared libraries): shared with every Node process, yet all in RSS. */
  fileKiB: number;
}

export function memKiB(pid: number): Mem {
  try {
    const t = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    const f = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(t)?.[1] ?? NaN);
    return { rssKiB: f('Rss'), ussKiB: f('Private_Clean') + f('Private_Dirty'), fileKiB: f('Rss') - f('Anonymous') };
  } catch {
    return { rssKiB: NaN, ussKiB: NaN, fileKiB: NaN };
  }
}

/**
 * /proc/PID/smaps summed by mapping, in KiB: [Rss, Anonymous] per file (the node binary by permission: its code, r-xp,
 * apart from its read-only data, ICU and the snapshot), all anonymous mappings under '[anon]'.
 */
export function smapsByMapping(pid: number): Map<string, [number, number]> {
  const m = new Map<string, [number, number]>();
  let name = '';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^[0-9a-f]+-[0-9a-f]+ (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      name = head[2] ? (head[2].endsWith('/node') ? `${head[2]} ${head[1]}` : head[2]) : '[anon]';
      continue;
    }
    const kv = /^(Rss|Anonymous):\s+(\d+) kB/.exec(line);
    if (!kv) continue;
    const e = m.get(name) ?? [0, 0];
    e[kv[1] === 'Rss' ? 0 : 1] += Number(kv[2]);
    m.set(name, e);
  }
  return m;
}

/** The parent's pid, or undefined when the process is gone. */
export function parentPid(pid: number): number | undefined {
  const f = statFields(pid);
  return f ? Number(f[1]) : undefined;
}

export function alive(pid: number): boolean {
  const f = statFields(pid);
  return !!f && f[0] !== 'Z';
}

export function killPid(pid: number | undefined, sig: NodeJS.Signals = 'SIGKILL'): void {
  if (!pid) return;
  try {
    process.kill(pid, sig);
  } catch {
    /* gone */
  }
}

/** Waits (polling) until pid is gone or a zombie; false on timeout. */
export async function waitGone(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return !alive(pid);
}
