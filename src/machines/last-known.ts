// The last listing each machine gave (state dir, one small file per machine): shown, marked stale, while it is away.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Paths } from '../platform/paths.js';
import { readFileBounded } from '../platform/read-file.js';
import { nameProblem } from './profile.js';

const MAX_BYTES = 1024 * 1024;

export interface LastKnown {
  /** When the listing was taken (ms since the epoch). */
  at: number;
  panes: unknown[];
}

function fileFor(paths: Paths, machine: string): string | undefined {
  // The name is a file name here: only a valid machine name becomes one.
  return nameProblem(machine) ? undefined : join(paths.stateDir, 'machines', `${machine}.json`);
}

/** Remembers a machine's listing; a listing too big to keep, or a disk that refuses, is simply not remembered. */
export function rememberPanes(paths: Paths, machine: string, panes: unknown[], now = Date.now()): void {
  const file = fileFor(paths, machine);
  if (!file) return;
  try {
    const text = JSON.stringify({ at: now, panes });
    if (text.length > MAX_BYTES) return;
    mkdirSync(join(paths.stateDir, 'machines'), { recursive: true, mode: 0o700 });
    writeFileSync(`${file}.${process.pid}.tmp`, text, { mode: 0o600 });
    renameSync(`${file}.${process.pid}.tmp`, file);
  } catch {
    /* a cache: losing it costs only the stale rows */
  }
}

/** The last listing, or undefined (none, unreadable, not ours). */
export function lastKnown(paths: Paths, machine: string): LastKnown | undefined {
  const file = fileFor(paths, machine);
  if (!file) return undefined;
  const r = readFileBounded(file, MAX_BYTES, { noFollow: true });
  if (!r.ok) return undefined;
  try {
    const v = JSON.parse(r.buf.toString('utf8')) as { at?: unknown; panes?: unknown };
    if (typeof v.at !== 'number' || !Array.isArray(v.panes)) return undefined;
    return { at: v.at, panes: v.panes.filter((p) => p && typeof p === 'object').slice(0, 1000) };
  } catch {
    return undefined;
  }
}
