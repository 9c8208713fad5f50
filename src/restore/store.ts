// Snapshot files: where they live, atomic writes (temp + fsync + rename, 0600), and a careful read that refuses and keeps aside a bad file.
import { chmodSync, closeSync, constants, fsyncSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Paths } from '../platform/paths.js';
import { valueDeeperThan } from '../api/json-guard.js';
import { readFileBounded } from '../platform/read-file.js';
import { inconsistency, LIMITS, snapshotSchema, SNAPSHOT_VERSION, type Snapshot } from './schema.js';

export const snapshotDir = (paths: Pick<Paths, 'stateDir'>): string => join(paths.stateDir, 'snapshots');
export const snapshotFile = (paths: Pick<Paths, 'stateDir' | 'session'>): string => join(snapshotDir(paths), `${paths.session}.json`);

export type ReadResult =
  | { kind: 'none' }
  | { kind: 'ok'; snapshot: Snapshot; file: string; notes: string[] }
  /** Refused: `message` says why; the file was moved to `keptAs` (or could not be, then it was removed). */
  | { kind: 'bad'; message: string; keptAs?: string };

const myUid = (): number | undefined => (typeof process.getuid === 'function' ? process.getuid() : undefined);

/** Moves a refused snapshot out of the way so the next start is clean, keeping it for the user to look at. */
export function keepAside(file: string, now = new Date()): string | undefined {
  const to = asideFile(file, 'bad', now);
  try {
    renameSync(file, to);
    return to;
  } catch {
    try {
      rmSync(file, { force: true });
    } catch {
      /* nothing more to do */
    }
    return undefined;
  }
}

function refuse(file: string, why: string): ReadResult {
  const keptAs = keepAside(file);
  return { kind: 'bad', message: `the snapshot ${file} ${why}; ${keptAs ? `kept aside as ${keptAs}` : 'removed'}, starting fresh`, keptAs };
}

/** Reads and validates the session's snapshot. Never throws; never follows a symlink; never trusts a file another user could have written. */
export function readSnapshot(paths: Pick<Paths, 'stateDir' | 'session'>): ReadResult {
  const file = snapshotFile(paths);
  const notes: string[] = [];
  const got = readFileBounded(file, LIMITS.fileBytes, {
    noFollow: true,
    inspect: (st) => {
      const uid = myUid();
      if (uid !== undefined && st.uid !== uid) return `belongs to another user (uid ${st.uid})`;
      // Writable by others: anyone could have put a command line in it. Readable by others: ours, only too open.
      if (st.mode & 0o022) return `is writable by other users (mode ${(st.mode & 0o777).toString(8)})`;
      if (st.mode & 0o044) {
        chmodSync(file, 0o600);
        notes.push(`the snapshot was readable by other users (mode ${(st.mode & 0o777).toString(8)}); fixed to 600`);
      }
      if (st.size > LIMITS.fileBytes) return `is too big (${st.size} bytes, limit ${LIMITS.fileBytes})`;
      return undefined;
    },
  });
  if (!got.ok) {
    if (got.code === 'ENOENT') return { kind: 'none' };
    if (got.code === 'ELOOP') return refuse(file, 'is a symlink (refused)');
    if (got.code === 'EREFUSED') return refuse(file, got.message);
    if (got.code === 'ENOTREG' || got.code === 'EISDIR') return refuse(file, 'is not a regular file');
    if (got.code === 'EFBIG') return refuse(file, `is too big (${got.message})`);
    return refuse(file, `could not be read (${got.code}: ${got.message})`);
  }
  const raw = got.buf;
  let data: unknown;
  try {
    data = JSON.parse(raw.toString('utf8'));
  } catch {
    return refuse(file, 'is not valid JSON (truncated or corrupt)');
  }
  if (valueDeeperThan(data, 160)) return refuse(file, 'is nested too deeply');
  const version = (data as { version?: unknown })?.version;
  if (version !== SNAPSHOT_VERSION) return refuse(file, `has version ${JSON.stringify(version ?? null).slice(0, 20)}, this castellan reads version ${SNAPSHOT_VERSION}`);
  const r = snapshotSchema.safeParse(data);
  if (!r.success) {
    const iss = r.error.issues[0];
    return refuse(file, `does not match the snapshot format (${iss.path.join('.') || 'top'}: ${iss.message.slice(0, 120)})`);
  }
  const odd = inconsistency(r.data);
  if (odd) return refuse(file, `is inconsistent (${odd})`);
  if (r.data.session !== paths.session) return refuse(file, `belongs to session "${r.data.session}", not "${paths.session}"`);
  return { kind: 'ok', snapshot: r.data, file, notes };
}

function ensureDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  try {
    chmodSync(dir, 0o700);
  } catch {
    /* not ours to fix; the file itself is 0600 */
  }
}

let tmpSeq = 0;

/** The snapshot as JSON in pieces (one per pane), so no single stringify or write holds the event loop for long. */
export function* snapshotJson(s: Snapshot): Generator<string> {
  const { windows, ...head } = s;
  yield JSON.stringify(head).slice(0, -1) + ',"windows":[';
  for (let i = 0; i < windows.length; i++) {
    const { panes, ...w } = windows[i];
    yield (i ? ',' : '') + JSON.stringify(w).slice(0, -1) + ',"panes":[';
    for (let j = 0; j < panes.length; j++) yield (j ? ',' : '') + JSON.stringify(panes[j]);
    yield ']}';
  }
  yield ']}';
}

/** Writes the snapshot atomically: a reader sees the old file or the new one, never half of one, even after kill -9 or a power cut. */
export async function writeSnapshotFile(paths: Pick<Paths, 'stateDir' | 'session'>, json: string | Iterable<string>): Promise<{ file: string; bytes: number }> {
  const file = snapshotFile(paths);
  ensureDir(snapshotDir(paths));
  const tmp = `${file}.tmp-${process.pid}-${++tmpSeq}`;
  const fh = await open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    let bytes = 0;
    for (const chunk of typeof json === 'string' ? [json] : json) {
      const buf = Buffer.from(chunk, 'utf8');
      await fh.write(buf);
      bytes += buf.length;
    }
    await fh.sync();
    await fh.close();
    await rename(tmp, file);
    return { file, bytes };
  } catch (e) {
    await fh.close().catch(() => undefined);
    await rm(tmp, { force: true }).catch(() => undefined);
    throw e;
  }
}

/** The same, synchronously: for the last snapshot while the server shuts down. */
export function writeSnapshotFileSync(paths: Pick<Paths, 'stateDir' | 'session'>, json: string): { file: string; bytes: number } {
  const file = snapshotFile(paths);
  ensureDir(snapshotDir(paths));
  const tmp = `${file}.tmp-${process.pid}-${++tmpSeq}`;
  const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    const buf = Buffer.from(json, 'utf8');
    let off = 0;
    while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
    fsyncSync(fd);
    closeSync(fd);
    renameSync(tmp, file);
    return { file, bytes: buf.length };
  } catch (e) {
    try {
      closeSync(fd);
    } catch {
      /* closed already */
    }
    rmSync(tmp, { force: true });
    throw e;
  }
}

export function dropSnapshot(paths: Pick<Paths, 'stateDir' | 'session'>): boolean {
  const file = snapshotFile(paths);
  try {
    lstatSync(file);
  } catch {
    return false;
  }
  rmSync(file, { force: true });
  return true;
}

/**
 * Why a snapshot was set aside: `killed` (kill-session / kill-server: the user meant it), `replaced` (a start with
 * --no-restore), `bad` (refused when read). Killed and replaced ones stay a day, listed and restorable on purpose.
 */
export type AsideReason = 'killed' | 'replaced';
export const ASIDE_KEEP_MS = 24 * 3600 * 1000;
const ASIDE = /^([A-Za-z0-9_.-]{1,64})\.json\.(bad|killed|replaced)-(\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z)$/;
/** `<session>.json.<why>-<UTC time with - for : and .>`: what ASIDE reads back. */
const asideFile = (file: string, why: AsideReason | 'bad', now: Date) => `${file}.${why}-${now.toISOString().replace(/[:.]/g, '-')}`;
const stampTime = (s: string) => Date.parse(s.replace(/T(\d\d)-(\d\d)-(\d\d)-(\d{3})Z$/, 'T$1:$2:$3.$4Z'));

/** Moves the session's snapshot aside (nothing is deleted); the file it is kept as, or undefined when there was none. */
export function setAsideSnapshot(paths: Pick<Paths, 'stateDir' | 'session'>, why: AsideReason, now = new Date()): string | undefined {
  const file = snapshotFile(paths);
  const to = asideFile(file, why, now);
  try {
    if (!lstatSync(file).isFile()) return undefined;
    renameSync(file, to);
    return to;
  } catch {
    return undefined;
  }
}

/** Killed and replaced snapshots older than a day are removed (a refused one stays until the user removes it). */
export function pruneAside(paths: Pick<Paths, 'stateDir'>, now = Date.now()): void {
  let names: string[];
  try {
    names = readdirSync(snapshotDir(paths));
  } catch {
    return;
  }
  for (const n of names) {
    const m = ASIDE.exec(n);
    if (m && m[2] !== 'bad' && now - stampTime(m[3]) > ASIDE_KEEP_MS) rmSync(join(snapshotDir(paths), n), { force: true });
  }
}

/**
 * Makes the newest killed or replaced snapshot of the session (or the one named) the one the next start restores; a
 * current snapshot is itself set aside first, so bringing one back never loses another. The file now current, or why not.
 */
export function bringBack(paths: Pick<Paths, 'stateDir' | 'session'>, file?: string): { ok: true; from: string } | { ok: false; why: string } {
  const rows = listSnapshots(paths).filter((r) => r.session === paths.session && (r.status === 'killed' || r.status === 'replaced'));
  const pick = file ? rows.find((r) => r.file === file || r.file.endsWith(`/${file}`)) : rows.sort((a, b) => (b.asideAt ?? 0) - (a.asideAt ?? 0))[0];
  if (!pick) return { ok: false, why: file ? `no kept snapshot ${file} of session ${paths.session}` : `no killed or replaced snapshot of session ${paths.session} is kept` };
  setAsideSnapshot(paths, 'replaced');
  try {
    renameSync(pick.file, snapshotFile(paths));
  } catch (e) {
    return { ok: false, why: (e as Error).message };
  }
  return { ok: true, from: pick.file };
}

export interface SnapshotListing {
  session: string;
  file: string;
  bytes: number;
  /** ok: a snapshot a start would restore; bad: kept aside after a refusal; killed / replaced: see AsideReason. */
  status: 'ok' | 'bad' | AsideReason;
  /** When it was set aside (killed, replaced, bad). */
  asideAt?: number;
  savedAt?: number;
  windows?: number;
  panes?: number;
  problem?: string;
}

/** Every snapshot and kept-aside file in the state dir (reading only their size and shape; nothing is moved). */
export function listSnapshots(paths: Pick<Paths, 'stateDir'>): SnapshotListing[] {
  const dir = snapshotDir(paths);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const out: SnapshotListing[] = [];
  for (const n of names.sort()) {
    const file = join(dir, n);
    const aside = ASIDE.exec(n) ?? (/^([A-Za-z0-9_.-]{1,64})\.json\.bad-/.test(n) ? [n, n.split('.json.')[0], 'bad', ''] : null);
    const ok = /^([A-Za-z0-9_.-]{1,64})\.json$/.exec(n);
    if (!aside && !ok) continue;
    let bytes = 0;
    try {
      bytes = lstatSync(file).size;
    } catch {
      continue;
    }
    const session = aside ? aside[1] : ok![1];
    const status = aside ? (aside[2] as SnapshotListing['status']) : 'ok';
    const row: SnapshotListing = { session, file, bytes, status, ...(aside?.[3] ? { asideAt: stampTime(aside[3]) } : {}) };
    if (status === 'bad') {
      out.push(row);
      continue;
    }
    try {
      if (bytes > LIMITS.fileBytes) throw new Error('too big');
      if (lstatSync(file).isSymbolicLink()) throw new Error('a symlink');
      const r = snapshotSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
      if (!r.success) throw new Error('not a valid snapshot');
      row.savedAt = r.data.savedAt;
      row.windows = r.data.windows.length;
      row.panes = r.data.windows.reduce((s, w) => s + w.panes.length, 0);
    } catch (e) {
      row.problem = (e as Error).message.slice(0, 80);
    }
    out.push(row);
  }
  return out;
}
