// Reading `ps` output: one line per process, the columns every ps has (POSIX `-o`, plus the `sess`, `tpgid`, `stat` and
// `ucomm` keywords that macOS's BSD ps and Linux's procps both know). `args` comes last: it is the only free text.
//
// `sess` is the session: procps prints its id (the leader's pid); macOS's ps prints the kernel's session pointer, an
// opaque token that is the same for every process of one session. Either way two processes with the same token share a
// session, and that is all castellan asks of it (portable.ts compares tokens, never reads one as a pid on its own).
import type { ProcStat } from './types.js';

const COLUMNS = ['-o', 'pid=', '-o', 'ppid=', '-o', 'pgid=', '-o', 'sess=', '-o', 'tpgid=', '-o', 'stat=', '-o', 'ucomm='];
/** The whole table without argv: reading every process's arguments is most of what a `ps -A` costs. */
export const PS_TABLE_ARGS = ['-A', ...COLUMNS];
/** Named processes with their argv: `-ww` keeps `args` whole (procps cuts it at 80 columns when not on a terminal). */
export const psRowsArgs = (pids: readonly number[]): string[] => ['-ww', ...COLUMNS, '-o', 'args=', '-p', pids.join(',')];
/** The whole table with argv (the old single question; kept for tests and the bench's comparison). */
export const PS_ARGS = ['-A', '-ww', ...COLUMNS, '-o', 'args='];

export interface PsRow extends ProcStat {
  /** The session as ps printed it (see above); '' when it printed nothing usable. */
  sess: string;
  /** `args` split at blanks: ps joins argv with spaces, so an argument holding one is split in two (a known loss). */
  argv: string[];
}

const LINE = /^\s*(\d+)\s+(\d+)\s+(-?\d+)\s+(\S+)\s+(-?\d+)\s+(\S+)\s+(\S+)(?:\s+(.*))?$/;

/** One row, or undefined for anything that is not one (a header, a blank, a truncated line). */
export function parsePsLine(line: string): PsRow | undefined {
  const m = LINE.exec(line);
  if (!m) return undefined;
  const pid = Number(m[1]);
  const ppid = Number(m[2]);
  if (!Number.isSafeInteger(pid) || !Number.isSafeInteger(ppid) || pid <= 0) return undefined;
  // A token is a number (procps) or a hex pointer (macOS); anything else (`-`, `?`, 0: no session) is no token.
  const sess = /^(?:0x)?[0-9a-fA-F]{1,32}$/.test(m[4]!) && !/^(?:0x)?0+$/.test(m[4]!) ? m[4]! : '';
  // macOS shows a login shell's name as `-zsh` and some ucomm values with a path: the name is what identification wants.
  const comm = m[7]!.replace(/^.*\//, '').slice(0, 15);
  const argv = (m[8] ?? '').split(/\s+/).filter(Boolean).slice(0, 64).map((a) => a.slice(0, 512));
  const session = /^\d{1,10}$/.test(sess) ? Number(sess) : -1;
  return { pid, ppid, pgrp: Number(m[3]), session, sess, tpgid: Number(m[5]), state: m[6]!.charAt(0), comm, argv };
}

/** Every row of a whole `ps` output, at most `max` of them. */
export function parsePs(text: string, max = 100_000): Map<number, PsRow> {
  const rows = new Map<number, PsRow>();
  for (const line of text.split('\n')) {
    if (rows.size >= max) break;
    const r = parsePsLine(line);
    if (r) rows.set(r.pid, r);
  }
  return rows;
}

/** The cwd line of `lsof -a -p PID -d cwd -Fn` (`p<pid>`, then `n<path>`; older lsofs add `f<fd>`). */
export function parseLsofCwd(text: string): string | undefined {
  for (const line of text.split('\n')) if (line.startsWith('n/')) return line.slice(1);
  return undefined;
}

/** Every process's cwd in `lsof -a -p PID,PID... -d cwd -Fn` output: a `p<pid>` line, then its `n<path>`. */
export function parseLsofCwds(text: string): Map<number, string> {
  const out = new Map<number, string>();
  let pid: number | undefined;
  for (const line of text.split('\n')) {
    if (line.startsWith('p')) {
      const n = Number(line.slice(1));
      pid = /^p\d{1,10}$/.test(line) && n > 0 ? n : undefined;
    } else if (pid !== undefined && line.startsWith('n/') && !out.has(pid)) out.set(pid, line.slice(1));
  }
  return out;
}
