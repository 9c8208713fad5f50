// Reading `ps` output: one line per process, the columns every ps has (POSIX `-A -o`, plus the `tpgid`, `stat` and
// `ucomm` keywords that macOS's BSD ps and Linux's procps both know). `args` comes last: it is the only free text.
import type { ProcStat } from './types.js';

/** The ps arguments: `-ww` keeps `args` whole (procps cuts it at 80 columns when its output is not a terminal). */
export const PS_ARGS = ['-A', '-ww', '-o', 'pid=', '-o', 'ppid=', '-o', 'pgid=', '-o', 'tpgid=', '-o', 'stat=', '-o', 'ucomm=', '-o', 'args='];

export interface PsRow extends ProcStat {
  /** `args` split at blanks: ps joins argv with spaces, so an argument holding one is split in two (a known loss). */
  argv: string[];
}

const LINE = /^\s*(\d+)\s+(\d+)\s+(-?\d+)\s+(-?\d+)\s+(\S+)\s+(\S+)(?:\s+(.*))?$/;

/** One row, or undefined for anything that is not one (a header, a blank, a truncated line). */
export function parsePsLine(line: string): PsRow | undefined {
  const m = LINE.exec(line);
  if (!m) return undefined;
  const pid = Number(m[1]);
  const ppid = Number(m[2]);
  if (!Number.isSafeInteger(pid) || !Number.isSafeInteger(ppid) || pid <= 0) return undefined;
  // macOS shows a login shell's name as `-zsh` and some ucomm values with a path: the name is what identification wants.
  const comm = m[6]!.replace(/^.*\//, '').slice(0, 15);
  const argv = (m[7] ?? '').split(/\s+/).filter(Boolean).slice(0, 64).map((a) => a.slice(0, 512));
  return { pid, ppid, pgrp: Number(m[3]), session: -1, tpgid: Number(m[4]), state: m[5]!.charAt(0), comm, argv };
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
