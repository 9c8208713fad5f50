// The portable backend, for systems without /proc (macOS): `ps` for processes, `lsof` for a working directory.
//
// Only what POSIX ps and macOS's BSD ps both accept (ps.ts). Two kinds of question, so that what castellan pays does
// not grow with the host (issue 34):
// - the frequent one (every detection pass: a pane's foreground group and its leader's name) asks `ps -p` for the
//   pids of interest only, every pane's at once, and keeps the answer TABLE_MS; a foreground group that has exited
//   since (a `kill -0` says so, no process started) makes it ask again at once;
// - the rare ones (a pane's whole tree when its foreground changed, a hook caller's ancestry, what belongs to a pane
//   when it is closed) read the whole table, without argv (reading every process's arguments is most of a `ps -A`'s
//   cost), and then ask `ps -p` for the argv of the few processes that matter.
// Every question the server asks while panes run has an answer off its thread (the Async forms: the process is
// started by a helper shell, spawner.ts): detection identifies with them (detection-loop.ts asks `blocking`), a new pane's
// directory and a snapshot's are read that way, and a listing's directory is the last one read (pty.ts). The
// synchronous forms still start a process on the caller's thread (the CLI's questions, a stop's last scan).
// What belongs to a pane: its session, compared by ps's `sess` token (procps prints the session id; macOS a session
// pointer), besides its process group and every descendant of its program.
import { spawnSync } from 'node:child_process';
import { parseLsofCwds, parsePs, psRowsArgs, PS_TABLE_ARGS, type PsRow } from './ps.js';
import { groupExists, pidExists } from './pid.js';
import { runOffThread } from './spawner.js';
import type { PaneProcesses, ProcBackend, ProcOptions } from './types.js';

/** How long one answer of ps is used (ms). */
const TABLE_MS = 100;
/** A pid asked about within this long is asked about again with the next one (one `ps -p` serves every pane). */
const INTEREST_MS = 3000;
/** At most this many pids in one `ps -p` (a long list is one process start still, but bounded). */
const MAX_PIDS = 256;
/** A ps or lsof that takes longer than this (a hung NFS mount, a loaded machine) gives no answer. */
const TOOL_TIMEOUT_MS = 2000;
const ENV = { ...process.env, LC_ALL: 'C', LANG: 'C' };

let table: { at: number; rows: Map<number, PsRow> } | undefined;
/** Rows asked for by pid (with argv): pid -> when read, and the row (undefined: ps did not list it, it is gone). */
const asked = new Map<number, { at: number; row: PsRow | undefined }>();
/** Pids asked about lately: pid -> last asked. */
const interest = new Map<number, number>();
/** Every ps this process started, by kind, and every ps or lsof started on the asking thread (the bench and tests read it). */
export const psRuns = { table: 0, pids: 0, onThread: 0 };
/** Set when ps cannot be run at all: said once by lacks(). */
let psMissing = false;
let lsofMissing = false;

function run(cmd: string, args: string[]): string | undefined {
  psRuns.onThread++;
  const r = spawnSync(cmd, args, { encoding: 'utf8', env: ENV, timeout: TOOL_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'ignore'] });
  missing(cmd, r.error);
  return r.error ? undefined : r.stdout;
}

function missing(cmd: string, err: unknown): void {
  if ((err as NodeJS.ErrnoException | null)?.code !== 'ENOENT') return;
  if (cmd === 'ps') psMissing = true;
  else lsofMissing = true;
}

/** run() off the thread: run by the helper shell (spawner.ts), so not even a fork of this process happens here. */
async function runAsync(cmd: string, args: string[]): Promise<string | undefined> {
  const r = await runOffThread(cmd, args, { env: ENV, timeout: TOOL_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024 });
  if (r.code) missing(cmd, { code: r.code });
  return r.stdout;
}

/** The whole process table (no argv), read again when older than `maxAgeMs` (0: always). Empty when ps cannot run. */
export function processTable(maxAgeMs = TABLE_MS): Map<number, PsRow> {
  const now = Date.now();
  if (table && now - table.at <= maxAgeMs && maxAgeMs > 0) return table.rows;
  psRuns.table++;
  const out = run('ps', PS_TABLE_ARGS);
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
    psRuns.table++;
    void runAsync('ps', PS_TABLE_ARGS).then((out) => {
      const rows = out === undefined ? new Map<number, PsRow>() : parsePs(out);
      if (out !== undefined) table = { at: Date.now(), rows };
      resolve(rows);
    });
  }).finally(() => {
    reading = undefined;
  });
  return reading;
}

/** Forgets every answer (tests, the bench; a caller that knows the world changed). */
export function forgetTable(): void {
  table = undefined;
  asked.clear();
  interest.clear();
}

/**
 * Which of `pids` need asking (with every other pid asked about lately whose answer is older than TABLE_MS), and the
 * answers already known. `fresh`: ask about these even when a recent answer exists.
 */
function plan(pids: readonly number[], fresh: boolean): { out: Map<number, PsRow | undefined>; list: number[] } {
  const now = Date.now();
  const out = new Map<number, PsRow | undefined>();
  const want = new Set<number>();
  for (const pid of pids) {
    if (!Number.isSafeInteger(pid) || pid <= 0) {
      out.set(pid, undefined);
      continue;
    }
    interest.set(pid, now);
    const hit = asked.get(pid);
    // A row of a process that has exited since is no answer (a kill -0: no process started).
    if (!fresh && hit && now - hit.at <= TABLE_MS && (hit.row === undefined || pidExists(pid))) out.set(pid, hit.row);
    else want.add(pid);
  }
  if (!want.size) return { out, list: [] };
  for (const [pid, at] of interest) {
    if (want.size >= MAX_PIDS) break;
    if (now - at > INTEREST_MS) interest.delete(pid);
    else if (!want.has(pid) && now - (asked.get(pid)?.at ?? 0) > TABLE_MS / 2) want.add(pid);
  }
  return { out, list: [...want].slice(0, MAX_PIDS) };
}

/** Keeps what one `ps -p` over `list` answered (text undefined: ps could not run, nothing is kept). */
function keep(list: readonly number[], text: string | undefined): Map<number, PsRow> {
  const rows = text === undefined ? new Map<number, PsRow>() : parsePs(text, MAX_PIDS);
  const at = Date.now();
  if (asked.size > 4 * MAX_PIDS) for (const [pid, a] of asked) if (at - a.at > INTEREST_MS) asked.delete(pid);
  if (text !== undefined) for (const pid of list) asked.set(pid, { at, row: rows.get(pid) });
  return rows;
}

/** Rows (with argv) of `pids`, read with one `ps -p` on the thread (with the pids asked about lately). */
function rowsOf(pids: readonly number[], fresh = false): Map<number, PsRow | undefined> {
  const { out, list } = plan(pids, fresh);
  if (!list.length) return out;
  psRuns.pids++;
  const rows = keep(list, run('ps', psRowsArgs(list)));
  for (const pid of pids) if (!out.has(pid)) out.set(pid, rows.get(pid));
  return out;
}

/** The pids the next `ps -p` off the thread asks about: every question of one turn shares it. */
let batch: { pids: Set<number>; rows: Promise<Map<number, PsRow>> } | undefined;

/** rowsOf without blocking the thread: the questions of one turn (every pane's detection) share one `ps -p`. */
async function rowsOfAsync(pids: readonly number[], fresh = false): Promise<Map<number, PsRow | undefined>> {
  const { out, list } = plan(pids, fresh);
  if (!list.length) return out;
  if (!batch) {
    const pending = new Set<number>();
    const rows = new Promise<Map<number, PsRow>>((resolve) => {
      setImmediate(() => {
        if (batch?.pids === pending) batch = undefined;
        const all = [...pending].slice(0, MAX_PIDS);
        psRuns.pids++;
        void runAsync('ps', psRowsArgs(all)).then((text) => resolve(keep(all, text)));
      });
    });
    batch = { pids: pending, rows };
  }
  for (const pid of list) batch.pids.add(pid);
  const rows = await batch.rows;
  for (const pid of pids) if (!out.has(pid)) out.set(pid, rows.get(pid));
  return out;
}

/** The row of `pid` (with argv), at most TABLE_MS old. */
function row(pid: number, fresh = false): PsRow | undefined {
  return rowsOf([pid], fresh).get(pid);
}

/**
 * The terminal's foreground group, from the pane's root. A group that has exited since the answer was read (the
 * program a shell ran is gone, the shell has its terminal back) makes it read again: a badge must not outlive its
 * program by an answer kept for a tenth of a second (test/e2e/generic-agent under this backend).
 */
function foregroundPgid(rootPid: number): number | undefined {
  let r = row(rootPid);
  if (r && r.tpgid > 0 && r.tpgid !== r.pgrp && !groupExists(r.tpgid)) r = row(rootPid, true);
  return r && r.tpgid > 0 ? r.tpgid : undefined;
}

/** foregroundPgid off the thread, and read again at once when the group it names has exited. */
async function foregroundPgidAsync(rootPid: number): Promise<number | undefined> {
  let r = (await rowsOfAsync([rootPid])).get(rootPid);
  if (r && r.tpgid > 0 && r.tpgid !== r.pgrp && !groupExists(r.tpgid)) r = (await rowsOfAsync([rootPid], true)).get(rootPid);
  return r && r.tpgid > 0 ? r.tpgid : undefined;
}

function childrenMap(rows: Map<number, PsRow>): Map<number, number[]> {
  const map = new Map<number, number[]>();
  for (const r of rows.values()) {
    const list = map.get(r.ppid);
    if (list) list.push(r.pid); else map.set(r.ppid, [r.pid]);
  }
  return map;
}

/** The pids of the pane's tree (root first), from a table without argv. */
function treeOf(rows: Map<number, PsRow>, rootPid: number, max: number): number[] {
  const children = childrenMap(rows);
  const tree: number[] = [];
  const seen = new Set<number>();
  const queue = [rootPid];
  while (queue.length && tree.length < max) {
    const pid = queue.shift()!;
    if (seen.has(pid)) continue;
    seen.add(pid);
    if (!rows.has(pid)) continue;
    tree.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return tree;
}

/** The pane's processes from the tree's rows with argv (a process gone between the two questions drops out). */
function paneOf(rootPid: number, tree: number[], full: Map<number, PsRow | undefined>): PaneProcesses {
  const out = tree.map((pid) => full.get(pid)).filter((r): r is PsRow => !!r);
  const root = full.get(rootPid);
  if (!root) return { rootPid, processes: [] };
  rememberSession(root);
  const processes = out.map((r) => ({ pid: r.pid, ppid: r.ppid, comm: r.comm, argv: r.argv }));
  const tpgid = root.tpgid > 0 ? root.tpgid : undefined;
  const fg = tpgid === undefined ? undefined : out.find((s) => s.pid === tpgid) ?? out.find((s) => s.pgrp === tpgid);
  return { rootPid, foregroundPid: fg?.pid, foregroundPgid: tpgid, processes };
}

function readPaneProcesses(rootPid: number, opts: ProcOptions = {}): PaneProcesses {
  let rows = processTable();
  if (!rows.has(rootPid)) rows = processTable(0);
  if (!rows.get(rootPid)) return { rootPid, processes: [] };
  const tree = treeOf(rows, rootPid, opts.maxProcesses ?? 256);
  return paneOf(rootPid, tree, rowsOf(tree));
}

async function readPaneProcessesAsync(rootPid: number, opts: ProcOptions = {}): Promise<PaneProcesses> {
  let rows = table && Date.now() - table.at <= TABLE_MS ? table.rows : await processTableAsync();
  if (!rows.has(rootPid)) rows = await processTableAsync();
  if (!rows.get(rootPid)) return { rootPid, processes: [] };
  const tree = treeOf(rows, rootPid, opts.maxProcesses ?? 256);
  return paneOf(rootPid, tree, await rowsOfAsync(tree));
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

/**
 * Each pane leader's session token, remembered while it led its session: macOS's token is a kernel pointer that cannot
 * be derived from the leader's pid, and a leader may be gone (its shell died of the hangup) while a job it started in
 * a process group of its own still runs in its session, reparented to init (test/robustness/faults-orphans).
 */
const tokens = new Map<number, string>();

/** A row that leads its own group is a pane leader past its setsid (node-pty's child forks, then calls setsid). */
function rememberSession(r: PsRow): void {
  if (!r.sess || r.pgrp !== r.pid) return;
  if (tokens.size >= 4096 && !tokens.has(r.pid)) tokens.clear();
  tokens.set(r.pid, r.sess);
}

/**
 * The last members found, for the polls that follow a signal: `server stop` and closing a pane ask every 25 ms whether
 * anything is left, and a whole `ps -A` per poll blocks the server's thread (hundreds of ms each on a loaded machine).
 * Within MEMBERS_REUSE_MS the processes found last are checked with a signal 0 instead; only "none left" is confirmed
 * by a fresh scan, so a process forked since the last scan is never missed when it counts.
 */
const MEMBERS_REUSE_MS = 150;
let lastMembers: { key: string; at: number; pids: number[] } | undefined;

function sessionMembers(leaders: ReadonlySet<number>, self: number): number[] | undefined {
  const key = `${self}:${[...leaders].sort((a, b) => a - b).join(',')}`;
  if (lastMembers?.key === key && Date.now() - lastMembers.at <= MEMBERS_REUSE_MS) {
    const left = lastMembers.pids.filter(pidExists);
    if (left.length) return left;
  }
  const out = scanMembers(leaders, self);
  lastMembers = out ? { key, at: Date.now(), pids: out } : undefined;
  return out;
}

function scanMembers(leaders: ReadonlySet<number>, self: number): number[] | undefined {
  const rows = processTable(0);
  if (!rows.size) return undefined;
  // A leader is one of ours when it leads its own group (it has called setsid) or is still our child (before setsid).
  const isLeader = (r: PsRow) => leaders.has(r.pid) && (r.pgrp === r.pid || r.ppid === self);
  // The leaders' sessions: the token each showed while it led (macOS), and its pid (procps prints the session id).
  // Never the server's own session, whatever a token says: that would end the terminal castellan was started from.
  const own = rows.get(self)?.sess;
  const sessions = new Set<string>();
  for (const pid of leaders) {
    const r = rows.get(pid);
    if (r && isLeader(r)) rememberSession(r);
    const token = tokens.get(pid);
    if (token && token !== own) sessions.add(token);
    if (String(pid) !== own) sessions.add(String(pid));
  }
  const belongs = (r: PsRow): boolean => {
    if (r.sess && sessions.has(r.sess)) return true;
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

/** A leader's session token as ps prints it, read fresh off the thread, once it leads its session (see types.ts). */
async function sessionTokenAsync(pid: number): Promise<string | undefined> {
  const r = (await rowsOfAsync([pid], true)).get(pid);
  if (!r?.sess || r.pgrp !== r.pid || r.sess === String(pid)) return undefined;
  rememberSession(r);
  return r.sess;
}

/**
 * How long a working directory read with lsof answers by default (ms): `pane list` and every hook call's pane lookup ask
 * for it. A new pane asks with 0: only a read begun after it asked will do.
 */
const CWD_MS = 500;
/** pid -> the answer, stamped with when its lsof was asked (an answer is as old as its question, not its arrival). */
const cwds = new Map<number, { at: number; cwd: string | undefined }>();

/** Pids whose working directory was asked lately: pid -> last asked (one lsof answers every pane of a `pane list`). */
const cwdInterest = new Map<number, number>();

/** The pids one lsof asks about: `pid` and every other asked about lately (lsof starts slowly, over 100 ms on Linux). */
function cwdList(pid: number, now: number): number[] {
  cwdInterest.set(pid, now);
  const list = [pid];
  for (const [other, at] of cwdInterest) {
    if (list.length >= 64) break;
    if (now - at > INTEREST_MS) cwdInterest.delete(other);
    else if (other !== pid && now - (cwds.get(other)?.at ?? 0) > CWD_MS / 2) list.push(other);
  }
  return list;
}

function keepCwds(list: number[], askedAt: number, out: string | undefined): Map<number, string> {
  const found = out === undefined ? new Map<number, string>() : parseLsofCwds(out);
  if (cwds.size > 1024) cwds.clear();
  for (const p of list) if ((cwds.get(p)?.at ?? -Infinity) <= askedAt) cwds.set(p, { at: askedAt, cwd: found.get(p) });
  return found;
}

const lsofCwdArgs = (list: number[]) => ['-w', '-a', '-p', list.join(','), '-d', 'cwd', '-Fn'];

function processCwd(pid: number, maxAgeMs = CWD_MS): string | undefined {
  if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
  const now = Date.now();
  const hit = cwds.get(pid);
  if (hit && now - hit.at <= maxAgeMs) return hit.cwd;
  const list = cwdList(pid, now);
  return keepCwds(list, now, run('lsof', lsofCwdArgs(list))).get(pid);
}

/** lsof runs off the thread, one per pid at a time (a question asked while it runs waits for it if it is new enough). */
const cwdReads = new Map<number, { at: number; read: Promise<string | undefined> }>();

/** A working directory at most `maxAgeMs` old, read off the thread (0, what a new pane asks: read after this call). */
function processCwdAsync(pid: number, maxAgeMs = CWD_MS): Promise<string | undefined> {
  if (!Number.isSafeInteger(pid) || pid <= 0) return Promise.resolve(undefined);
  const now = Date.now();
  const hit = cwds.get(pid);
  if (hit && now - hit.at <= maxAgeMs) return Promise.resolve(hit.cwd);
  const running = cwdReads.get(pid);
  if (running && now - running.at <= maxAgeMs) return running.read;
  const list = cwdList(pid, now);
  const read = runAsync('lsof', lsofCwdArgs(list)).then((out) => keepCwds(list, now, out).get(pid));
  // keepCwds has stored every pid of the list by the time `read` settles: each one's answer is its entry.
  const mine = new Map(list.map((p) => [p, { at: now, read: p === pid ? read : read.then(() => cwds.get(p)?.cwd) }]));
  for (const [p, r] of mine) if ((cwdReads.get(p)?.at ?? -Infinity) <= now) cwdReads.set(p, r);
  void read.finally(() => {
    for (const [p, r] of mine) if (cwdReads.get(p) === r) cwdReads.delete(p);
  });
  return read;
}

/** Forgets remembered working directories (tests, the bench). */
export function forgetCwds(): void {
  cwds.clear();
  cwdInterest.clear();
}

export const portableBackend: ProcBackend = {
  name: 'portable',
  blocking: true,
  readStat: (pid) => row(pid),
  readStatAsync: async (pid) => (await rowsOfAsync([pid])).get(pid),
  // A signal 0 first (no process start when it is gone), then the table for a zombie (an orphan init has not reaped yet).
  processAlive: (pid) => pidExists(pid) && row(pid)?.state !== 'Z',
  // node-pty reaps its child the moment it exits, so a signal 0 is the whole answer, at no process start.
  childAlive: (pid) => pidExists(pid),
  foregroundPgid,
  foregroundPgidAsync,
  readPaneProcesses,
  readPaneProcessesAsync,
  descendsFrom: (pid, ancestor) => descendsFrom(pid, ancestor),
  descendsFromAsync,
  sessionMembers,
  sessionTokenAsync,
  processCwd,
  processCwdAsync,
  fdNonBlocking: () => false,
  reopenStdinNonBlocking: () => undefined,
  reaperArgs: () => [],
  lacks: () => [
    ...(psMissing ? ['`ps` could not be run: no identification, no process tree (agents are known from their hooks and launch command only)'] : []),
    ...(lsofMissing ? ['`lsof` could not be run: new panes and restores start in the pane\'s first directory, not where its shell has moved'] : []),
    'sessions are read as ps\'s `sess` token (on macOS a session pointer, read from each pane\'s shell while it runs and told to the crash reaper): a pane whose program died within 300 ms of starting is ended by its process group and descendants only',
    'argv is read from `ps`, joined with spaces: an argument holding a space reads as two (identification by a path with spaces may miss)',
    'a working directory costs an `lsof` start (tens of ms), not a read: a split or new window from a key reads it then, on the server\'s thread; the API\'s split reads it then off the thread; a snapshot takes one at most half a second old, a listing the last one read (half a second old or more; the pane\'s first directory before any)',
    'the hook bridge reads its payload through a stream (one event-loop turn, a few ms more per tool call)',
  ],
};
