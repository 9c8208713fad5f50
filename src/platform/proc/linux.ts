// The Linux backend: every answer read from /proc, the kernel's own files, with no process started.
//
// Cheap and never throwing: a vanished process or an unreadable file just drops out. Children come
// from /proc/<pid>/task/<tid>/children when the kernel has it (CONFIG_PROC_CHILDREN), else from one
// scan of /proc/*/stat. Sessions (what a pane owns) are listed from one scan of /proc/*/stat.
import { closeSync, constants, openSync, readdirSync, readFileSync, readlinkSync, readSync } from 'node:fs';
import { join } from 'node:path';
import type { PaneProcesses, ProcBackend, ProcOptions, ProcStat } from './types.js';
import { pidExists } from './pid.js';

export const PROC_DIR = '/proc';

const read = (file: string): string | undefined => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
};

export function parseStat(text: string): ProcStat | undefined {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const f = text.slice(close + 2).split(' ');
  const pid = Number(text.slice(0, open).trim());
  const [ppid, pgrp, session, tpgid] = [Number(f[1]), Number(f[2]), Number(f[3]), Number(f[5])];
  if (!Number.isInteger(pid) || !Number.isInteger(ppid)) return undefined;
  return { pid, comm: text.slice(open + 1, close), ppid, pgrp, session, tpgid, state: f[0] };
}

export function readStat(pid: number, procDir = '/proc'): ProcStat | undefined {
  const text = read(join(procDir, String(pid), 'stat'));
  return text ? parseStat(text) : undefined;
}

/** The process exists and has not exited (a zombie has exited and only awaits reaping). */
export function processAlive(pid: number, procDir = '/proc'): boolean {
  const text = read(join(procDir, String(pid), 'stat'));
  // The state is the field right after the parenthesised name.
  return !!text && text[text.lastIndexOf(')') + 2] !== 'Z';
}

/** The foreground process group of the pane's terminal, from its root process (one small read). */
export function foregroundPgid(rootPid: number, procDir = '/proc'): number | undefined {
  const st = readStat(rootPid, procDir);
  return st && st.tpgid > 0 ? st.tpgid : undefined;
}

function readArgv(pid: number, procDir: string): string[] {
  const raw = read(join(procDir, String(pid), 'cmdline'));
  if (!raw) return [];
  const argv = raw.split('\0');
  // a program that sets its title (pi, node's process.title) overwrites argv and pads it with NULs
  while (argv.length && argv[argv.length - 1] === '') argv.pop();
  return argv.slice(0, 64).map((a) => a.slice(0, 512));
}

/** Children via task/<tid>/children; undefined when the kernel does not provide the file. */
function childrenFromTasks(pid: number, procDir: string): number[] | undefined {
  let tids: string[];
  try {
    tids = readdirSync(join(procDir, String(pid), 'task'));
  } catch {
    return undefined;
  }
  const out: number[] = [];
  let any = false;
  for (const tid of tids) {
    const text = read(join(procDir, String(pid), 'task', tid, 'children'));
    if (text === undefined) continue;
    any = true;
    for (const s of text.trim().split(/\s+/)) if (s) out.push(Number(s));
  }
  return any || tids.length === 0 ? out : undefined;
}

/** ppid → children for every process, from one pass over /proc/*\/stat. */
function scanChildren(procDir: string): Map<number, number[]> {
  const map = new Map<number, number[]>();
  let names: string[];
  try {
    names = readdirSync(procDir);
  } catch {
    return map;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const st = readStat(Number(name), procDir);
    if (!st) continue;
    const list = map.get(st.ppid);
    if (list) list.push(st.pid); else map.set(st.ppid, [st.pid]);
  }
  return map;
}

/** The pane's root process, its descendants and the foreground group. Empty when /proc is missing. */
export function readPaneProcesses(rootPid: number, opts: ProcOptions = {}): PaneProcesses {
  const procDir = opts.procDir ?? '/proc';
  const max = opts.maxProcesses ?? 256;
  const rootStat = readStat(rootPid, procDir);
  if (!rootStat) return { rootPid, processes: [] };
  let scanned: Map<number, number[]> | undefined;
  const childrenOf = (pid: number): number[] => {
    if (!scanned) {
      const direct = childrenFromTasks(pid, procDir);
      if (direct) return direct;
      scanned = scanChildren(procDir);
    }
    return scanned.get(pid) ?? [];
  };
  const stats: ProcStat[] = [];
  const seen = new Set<number>();
  const queue = [rootPid];
  while (queue.length && stats.length < max) {
    const pid = queue.shift()!;
    if (seen.has(pid)) continue;
    seen.add(pid);
    const st = pid === rootPid ? rootStat : readStat(pid, procDir);
    if (!st) continue;
    stats.push(st);
    queue.push(...childrenOf(pid));
  }
  const processes = stats.map((s) => ({ pid: s.pid, ppid: s.ppid, comm: s.comm, argv: readArgv(s.pid, procDir) }));
  const tpgid = rootStat.tpgid > 0 ? rootStat.tpgid : undefined;
  const fg = tpgid === undefined ? undefined : stats.find((s) => s.pid === tpgid) ?? stats.find((s) => s.pgrp === tpgid);
  return { rootPid, foregroundPid: fg?.pid, foregroundPgid: tpgid, processes };
}

/**
 * Whether `pid` is `ancestor` or runs under it (following parents up at most `maxDepth` steps); undefined when /proc
 * cannot say (no /proc: another platform).
 */
export function descendsFrom(pid: number, ancestor: number, procDir = '/proc', maxDepth = 64): boolean | undefined {
  if (!readStat(process.pid, procDir)) return undefined;
  let cur = pid;
  for (let i = 0; i <= maxDepth && cur > 1; i++) {
    if (cur === ancestor) return true;
    const st = readStat(cur, procDir);
    if (!st) return false;
    cur = st.ppid;
  }
  return cur === ancestor;
}

/** The process's working directory (the link the kernel keeps), or undefined when it is gone or not ours to read. */
export function processCwd(pid: number, procDir = '/proc'): string | undefined {
  try {
    return readlinkSync(join(procDir, String(pid), 'cwd'));
  } catch {
    return undefined;
  }
}

/** A fork bomb in a pane must not make one scan unbounded. */
const MAX_SCAN = 100_000;

/**
 * Live (not zombie) processes in the sessions led by `leaders`, besides `self`. A leader that is still `self`'s own
 * child counts even before it leads its session: node-pty's child calls setsid() only after the fork.
 */
export function sessionMembers(leaders: ReadonlySet<number>, self: number, procDir = '/proc'): number[] | undefined {
  let names: string[];
  try {
    names = readdirSync(procDir);
  } catch {
    return undefined;
  }
  const out: number[] = [];
  for (const name of names.slice(0, MAX_SCAN)) {
    if (name.charCodeAt(0) < 48 || name.charCodeAt(0) > 57) continue;
    const s = readStat(Number(name), procDir);
    if (s && s.state !== 'Z' && (leaders.has(s.session) || (leaders.has(s.pid) && s.ppid === self)) && s.pid !== self) out.push(s.pid);
  }
  return out;
}

/** Is this descriptor's file description non-blocking (the octal `flags` line of /proc/self/fdinfo/FD)? */
export function fdNonBlocking(fd: number): boolean {
  let f: number | undefined;
  try {
    // Not readFileSync: its first call costs ~1 ms here; a proc file this small comes in one read.
    f = openSync(`/proc/self/fdinfo/${fd}`, 'r');
    const buf = Buffer.allocUnsafe(4096);
    const m = /^flags:\s+([0-7]+)$/m.exec(buf.toString('latin1', 0, readSync(f, buf, 0, buf.length, null)));
    return !!m && (parseInt(m[1]!, 8) & constants.O_NONBLOCK) !== 0;
  } catch {
    return false;
  } finally {
    if (f !== undefined) closeSync(f);
  }
}

/** A second, non-blocking descriptor of the FIFO on stdin (a new open file description: fd 0's own flags stay). */
export function reopenStdinNonBlocking(): number | undefined {
  try {
    return openSync('/proc/self/fd/0', constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
}

export const linuxBackend: ProcBackend = {
  name: 'proc',
  blocking: false,
  readStat: (pid) => readStat(pid),
  readStatAsync: async (pid) => readStat(pid),
  processAlive: (pid) => processAlive(pid),
  childAlive: (pid) => processAlive(pid),
  foregroundPgid: (pid) => foregroundPgid(pid),
  foregroundPgidAsync: async (pid) => foregroundPgid(pid),
  readPaneProcesses: (pid, opts) => readPaneProcesses(pid, opts),
  readPaneProcessesAsync: async (pid, opts) => readPaneProcesses(pid, opts),
  descendsFrom: (pid, ancestor) => descendsFrom(pid, ancestor),
  descendsFromAsync: async (pid, ancestor) => descendsFrom(pid, ancestor),
  sessionMembers: (leaders, self) => sessionMembers(leaders, self),
  processCwd: (pid) => processCwd(pid),
  processCwdAsync: async (pid) => processCwd(pid),
  fdNonBlocking,
  reopenStdinNonBlocking,
  reaperArgs: () => ['--proc', PROC_DIR],
  lacks: () => [],
};
