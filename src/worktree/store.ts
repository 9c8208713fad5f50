// The session's worktree records on disk (one JSON file per session), read bounded and written atomically.
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { readFileBounded } from '../platform/read-file.js';
import { storeSchema, type WorktreeRecord } from './record.js';

const MAX_BYTES = 2 * 1024 * 1024;

export function storeFile(stateDir: string, session: string): string {
  return join(stateDir, `worktrees-${session}.json`);
}

/** The records, or none (with why) when the file is missing, too big or not ours. */
export function readStore(file: string): { records: WorktreeRecord[]; problem?: string } {
  const r = readFileBounded(file, MAX_BYTES, { noFollow: true });
  if (!r.ok) return r.code === 'ENOENT' ? { records: [] } : { records: [], problem: `${file}: ${r.message}` };
  try {
    const parsed = storeSchema.safeParse(JSON.parse(r.buf.toString('utf8')));
    if (!parsed.success) return { records: [], problem: `${file}: not a worktree list (${parsed.error.issues[0]?.message ?? 'invalid'})` };
    return { records: parsed.data.worktrees };
  } catch (e) {
    return { records: [], problem: `${file}: ${(e as Error).message}` };
  }
}

let seq = 0;
export async function writeStore(file: string, records: readonly WorktreeRecord[]): Promise<void> {
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.${++seq}.tmp`;
  await writeFile(tmp, JSON.stringify({ version: 1, worktrees: records }, null, 1) + '\n', { mode: 0o600 });
  await rename(tmp, file);
}
