// The portable backend, for systems without /proc (macOS): `ps` for the process table, `lsof` for a working directory.
//
// Only what POSIX ps and macOS's BSD ps both accept (ps.ts). One `ps -A` costs a process start (a few ms on an idle
// machine, see `npm run bench`), so a table is kept for TABLE_MS: one identification pass over every pane reads it
// once. A pid the table does not know (a process started since) makes it read again. No session ids: macOS's ps does
// not report them, so what belongs to a pane is its process group and every descendant of its program.
import { execFile, spawnSync } from 'node:child_process';
import { parseLsofCwd, parsePs, PS_ARGS, type PsRow } from './ps.js';
import { pidExists } from './pid.js';
import type { PaneProcesses, ProcBackend, ProcOptions } from './types.js';

/** How long one process table answers (ms). */
const TABLE_MS = 100;
/** A ps or lsof that takes longer than this (a hung NFS mount, a loaded machine) gives no answer. */
const TOOL_TIMEOUT_MS = 2000;
const ENV = { ...process.env, LC_ALL: 'C', LANG: 'C' };

let table: { at: number; rows: Map<number, PsRow> } | undefined;
/** Set when ps cannot be run at all: said once by lacks(). */
let psMissing = false;
let lsofMissing = false;

function run(cmd: string, args: string[]): string | undefined {
  const r = spawnSync(cmd, args, { encoding: 'utf8', env: ENV, timeout: TOOL_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'ignore'] });
  if (r.error) {
    if ((r.error as NodeJS.ErrnoException).code === 'ENOENT') {
      if (cmd === 'ps') psMissing = true;
      else lsofMissing = true;
    }
    return undefined;
  }
  return r.stdout;
}

/** The process table, read again when older than `maxAgeMs` (0: always). Empty when ps cannot run. */
export function processTable(maxAgeMs = TABLE_MS): Map<number, PsRow> {
  const now = Date.now();
  if (table && now - table.at <= maxAgeMs && maxAgeMs > 0) return table.rows;
  const out = run('ps', PS_ARGS);
  const rows = out === undefined ? new Map<number, PsRow>() : parsePs(out);
  table = { at: Date.now(), rows };
  return rows;
}

let reading: Promise<Map<number, PsRow>> | undefined;

/**
 * A fresh table without blocking the thread: one `ps` in flight at a time, shared by every caller that asks meanwhile,
 * so forty hook calls arriving together cost a ps or two, not forty in a row.
 */
export function processTableAsync(): Promise<Map<number, PsRow>> {
  reading ??= new Promise<Map<number, PsRow>>((resolve) => {
    execFile('ps', PS_ARGS, { encoding: 'utf8', env: ENV, timeout: TOOL_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024 }, (err, stdout) => {
      if ((err as NodeJS.ErrnoException | null)?.code === 'ENOENT') psMissing = true;
      const rows = err ? new Map<number, PsRow>() : parsePs(stdout);
      if (!err) table = { at: Date.now(), rows };
      resolve(rows);
    });
  }).finally(() => {
    reading = undefined;
  });
  return reading;
}

/** Forgets the table (tests; a caller that knows the world changed). */
export function forgetTable(): void {
  table = undefined;
}

/** The row of `pid`: from the table when it is there, else from a fresh one. */
function row(pid: number): PsRow | undefined {
  const before = table?.at;
  const r = processTable().get(pid);
  return r || table?.at !== before ? r : processTable(0).get(pid);
}

function childrenMap(rows: Map<number, PsRow>): Map<number, number[]> {
  const map = new Map<number, number[]>();
  for (const r of rows.values()) {
    const list = map.get(r.ppid);
    if (list) list.push(r.pid); else map.set(r.ppid, [r.pid]);
  }
  return map;
}

function readPaneProcesses(rootPid: number, opts: ProcOptions = {}): PaneProcesses {
  const max = opts.maxProcesses ?? 256;
  let rows = processTable();
  if (!rows.has(rootPid)) rows = processTable(0);
  const root = rows.get(rootPid);
  if (!root) return { rootPid, processes: [] };
  const children = childrenMap(rows);
  const out: PsRow[] = [];
  const seen = new Set<number>();
  const queue = [rootPid];
  while (queue.length && out.length < max) {
    const pid = queue.shift()!;
    if (seen.has(pid)) continue;
    seen.add(pid);
    const r = rows.get(pid);
    if (!r) continue;
    out.push(r);
    queue.push(...(children.get(pid) ?? []));
  }
  const processes = out.map((r) => ({ pid: r.pid, ppid: r.ppid, comm: r.comm, argv: r.argv }));
  const tpgid = root.tpgid > 0 ? root.tpgid : undefined;
  const fg = tpgid === undefined ? undefined : out.find((s) => s.pid === tpgid) ?? out.find((s) => s.pgrp === tpgid);
  return { rootPid, foregroundPid: fg?.pid, foregroundPgid: tpgid, processes };
}

function descendsFrom(pid: number, ancestor: number, maxDepth = 64): boolean | undefined {
  // A process that just connected is usually newer than the table: then it is read again. A table that knows it is
  // used as it is (TABLE_MS old at most): forty hooks at once cost one ps, not forty in a row on the server's thread.
  let rows = processTable();
  if (!rows.has(pid)) rows = processTable(0);
  if (!rows.size) return undefined;
  return walk(rows, pid, ancestor, maxDepth);
}

function walk(rows: Map<number, PsRow>, pid: number, ancestor: number, maxDepth = 64): boolean {
  let cur = pid;
  for (let i = 0; i <= maxDepth && cur > 1; i++) {
    if (cur === ancestor) return true;
    const r = rows.get(cur);
    if (!r) return false;
    cur = r.ppid;
  }
  return cur === ancestor;
}

async function descendsFromAsync(pid: number, ancestor: number): Promise<boolean | undefined> {
  const cached = table && Date.now() - table.at <= TABLE_MS ? table.rows : undefined;
  if (cached?.has(pid)) return walk(cached, pid, ancestor);
  // A ps already running may have started before this process: then one more, started after it.
  let rows = await processTableAsync();
  if (!rows.has(pid)) rows = await processTableAsync();
  return rows.size ? walk(rows, pid, ancestor) : undefined;
}

function sessionMembers(leaders: ReadonlySet<number>, self: number): number[] | undefined {
  const rows = processTable(0);
  if (!rows.size) return undefined;
  // A leader is one of ours when it leads its own group (it has called setsid) or is still our child (before setsid).
  const isLeader = (r: PsRow) => leaders.has(r.pid) && (r.pgrp === r.pid || r.ppid === self);
  const belongs = (r: PsRow): boolean => {
    if (leaders.has(r.pgrp) && rows.get(r.pgrp) === undefined) return true;
    if (leaders.has(r.pgrp) && isLeader(rows.get(r.pgrp)!)) return true;
    let cur: PsRow | undefined = r;
    for (let i = 0; cur && i <= 64; i++) {
      if (isLeader(cur)) return true;
      if (cur.ppid <= 1 || cur.ppid === self) return false;
      cur = rows.get(cur.ppid);
    }
    return false;
  };
  const out: number[] = [];
  for (const r of rows.values()) if (r.pid !== self && r.state !== 'Z' && belongs(r)) out.push(r.pid);
  return out;
}

/** How long a working directory read with lsof answers (ms): `pane list` and every hook call's pane lookup ask for it. */
const CWD_MS = 500;
const cwds = new Map<number, { at: number; cwd: string | undefined }>();

function processCwd(pid: number): string | undefined {
  if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
  const now = Date.now();
  const hit = cwds.get(pid);
  if (hit && now - hit.at <= CWD_MS) return hit.cwd;
  const out = run('lsof', ['-w', '-a', '-p', String(pid), '-d', 'cwd', '-Fn']);
  const cwd = out === undefined ? undefined : parseLsofCwd(out);
  if (cwds.size > 1024) cwds.clear();
  cwds.set(pid, { at: Date.now(), cwd });
  return cwd;
}

/** Forgets remembered working directories (tests, the bench). */
export function forgetCwds(): void {
  cwds.clear();
}

export const portableBackend: ProcBackend = {
  name: 'portable',
  readStat: (pid) => row(pid),
  // A signal 0 first (no process start when it is gone), then the table for a zombie (an orphan init has not reaped yet).
  processAlive: (pid) => pidExists(pid) && row(pid)?.state !== 'Z',
  // node-pty reaps its child the moment it exits, so a signal 0 is the whole answer, at no process start.
  childAlive: (pid) => pidExists(pid),
  foregroundPgid: (pid) => {
    const r = row(pid);
    return r && r.tpgid > 0 ? r.tpgid : undefined;
  },
  readPaneProcesses,
  descendsFrom: (pid, ancestor) => descendsFrom(pid, ancestor),
  descendsFromAsync,
  sessionMembers,
  processCwd,
  fdNonBlocking: () => false,
  reopenStdinNonBlocking: () => undefined,
  reaperArgs: () => [],
  lacks: () => [
    ...(psMissing ? ['`ps` could not be run: no identification, no process tree (agents are known from their hooks and launch command only)'] : []),
    ...(lsofMissing ? ['`lsof` could not be run: new panes and restores start in the pane\'s first directory, not where its shell has moved'] : []),
    'no session ids: a process that left its pane\'s process group and whose parent has exited is not ended with the pane',
    'argv is read from `ps`, joined with spaces: an argument holding a space reads as two (identification by a path with spaces may miss)',
    'a working directory costs an `lsof` start (tens of ms), not a read, and is remembered for half a second',
    'the hook bridge reads its payload through a stream (one event-loop turn, a few ms more per tool call)',
  ],
};
