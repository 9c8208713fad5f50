// What `castellan ls` shows of a saved session (windows, panes, when), read without the snapshot schema (zod).
import { lstatSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Paths } from '../platform/paths.js';
import { LIMITS, SNAPSHOT_VERSION } from './limits.js';

export interface SnapshotPeek {
  windows: number;
  panes: number;
  savedAt: number;
}

/**
 * The session's own snapshot (not the ones kept aside), if it looks like one a start restores: version, windows with
 * panes, within the limits. The start itself still checks it whole (store.ts); a file that fails there is set aside
 * with a message, so a peek that says "saved" for it is wrong for one `ls` at most.
 */
export function peekSnapshot(paths: Pick<Paths, 'stateDir'>, session: string): SnapshotPeek | undefined {
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(session)) return undefined;
  const file = join(paths.stateDir, 'snapshots', `${session}.json`);
  try {
    const st = lstatSync(file);
    if (!st.isFile() || st.size > LIMITS.fileBytes) return undefined;
    const s = JSON.parse(readFileSync(file, 'utf8')) as { version?: unknown; savedAt?: unknown; windows?: unknown };
    if (s?.version !== SNAPSHOT_VERSION || !Array.isArray(s.windows) || !s.windows.length || s.windows.length > LIMITS.windows) return undefined;
    if (typeof s.savedAt !== 'number' || !Number.isFinite(s.savedAt) || s.savedAt < 0) return undefined;
    let panes = 0;
    for (const w of s.windows as { panes?: unknown }[]) {
      if (!Array.isArray(w?.panes) || !w.panes.length || w.panes.length > LIMITS.panesPerWindow) return undefined;
      panes += w.panes.length;
    }
    return { windows: s.windows.length, panes, savedAt: s.savedAt };
  } catch {
    return undefined;
  }
}
