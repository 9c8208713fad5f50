// Reads a pane's process tree from /proc (Linux): descendants of the pane's root process and the terminal's foreground group.
//
// Cheap and never throwing: a vanished process or an unreadable file just drops out. Children come
// from /proc/<pid>/task/<tid>/children when the kernel has it (CONFIG_PROC_CHILDREN), else from one
// scan of /proc/*/stat. On other platforms (no /proc) the result is empty and identification falls
// back to the launch command and reports.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ProcInfo } from '../detect/identify.js';

export interface ProcStat {
  pid: number;
  comm: string;
  ppid: number;
  pgrp: number;
  /** The session the process belongs to (a pane's program leads its own). */
  session: number;
  /** Foreground process group of the process's controlling terminal (-1: none). */
  tpgid: number;
  /** R, S, D, Z (exited, awaiting reaping), ... */
  state: string;
}

export interface PaneProcesses {
  rootPid: number;
  /** A process of the terminal's foreground group (its leader when alive), if it is in the tree. */
  foregroundPid?: number;
  foregroundPgid?: number;
  processes: ProcInfo[];
}

export interface ProcOptions {
  /** Default "/proc" (tests point it at a fake tree). */
  procDir?: string;
  /** Stop collecting after this many processes (a fork bomb in a pane must not stall the server). */
  maxProcesses?: number;
}

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

/** The pid names a process, ours or not (works without /proc; a zombie still counts: use processAlive for "has it exited"). */
export function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
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
  const processes: ProcInfo[] = stats.map((s) => ({ pid: s.pid, ppid: s.ppid, comm: s.comm, argv: readArgv(s.pid, procDir) }));
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
