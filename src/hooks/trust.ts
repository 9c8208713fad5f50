// The trust store: which repository config files (by path and sha256 of their content) may run hooks.
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';

/** `trusted`: hash recorded and equal; `untrusted`: never trusted; `changed`: trusted once, content differs now. */
export type TrustStatus = 'trusted' | 'untrusted' | 'changed';

const entrySchema = z.object({ sha256: z.string().regex(/^[0-9a-f]{64}$/), trusted_at: z.string().optional() });
const storeSchema = z.object({ version: z.literal(1), files: z.record(z.string(), entrySchema) });
export type TrustEntry = z.infer<typeof entrySchema>;
export type TrustData = z.infer<typeof storeSchema>;

export const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');

/** The key a file is trusted under: its real path (a symlink cannot borrow another file's trust). */
export function canonicalPath(path: string): string {
  const abs = resolve(path);
  try {
    return realpathSync(abs);
  } catch {
    return abs;
  }
}

/**
 * Reads the store; a missing file is an empty store. A corrupt one is also treated as empty (nothing
 * trusted — fail closed) and reported through `problem`.
 */
export function readTrust(trustFile: string): { data: TrustData; problem?: string } {
  let text: string;
  try {
    text = readFileSync(trustFile, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const empty: TrustData = { version: 1, files: {} };
    return code === 'ENOENT' ? { data: empty } : { data: empty, problem: `cannot read ${trustFile}: ${(e as Error).message}` };
  }
  try {
    const parsed = storeSchema.safeParse(JSON.parse(text));
    if (parsed.success) return { data: parsed.data };
    return { data: { version: 1, files: {} }, problem: `${trustFile} is not a valid trust store; nothing is trusted until it is rewritten` };
  } catch {
    return { data: { version: 1, files: {} }, problem: `${trustFile} is not valid JSON; nothing is trusted until it is rewritten` };
  }
}

/** Writes the store atomically, mode 0600 in a 0700 directory. */
export function writeTrust(trustFile: string, data: TrustData): void {
  mkdirSync(dirname(trustFile), { recursive: true, mode: 0o700 });
  const tmp = `${trustFile}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(data, null, 2) + '\n', { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, trustFile);
}

export function trustStatus(data: TrustData, path: string, contentSha: string | undefined): TrustStatus {
  const entry = data.files[canonicalPath(path)];
  if (!entry) return 'untrusted';
  return contentSha !== undefined && entry.sha256 === contentSha ? 'trusted' : 'changed';
}

/** Records a file's current content hash; returns the hash. Throws when the file cannot be read. */
export function trustFile(trustFile: string, path: string, now = new Date()): { path: string; sha256: string } {
  const key = canonicalPath(path);
  const hash = sha256(readFileSync(key));
  const { data } = readTrust(trustFile);
  data.files[key] = { sha256: hash, trusted_at: now.toISOString() };
  writeTrust(trustFile, data);
  return { path: key, sha256: hash };
}

/** Forgets a file; returns whether it was trusted. */
export function revokeTrust(trustFile: string, path: string): boolean {
  const key = canonicalPath(path);
  const { data } = readTrust(trustFile);
  const had = Object.hasOwn(data.files, key) || Object.hasOwn(data.files, resolve(path));
  delete data.files[key];
  delete data.files[resolve(path)];
  if (had) writeTrust(trustFile, data);
  return had;
}

/** Why a hook from a file with this status did not run, in words for the UI and `config check`. */
export function inertReason(status: Exclude<TrustStatus, 'trusted'>, file: string): string {
  return status === 'untrusted'
    ? `${file} is not trusted; hooks from it stay inert until you run \`castellan trust\``
    : `${file} changed since it was trusted; hooks from it stay inert until you run \`castellan trust\` again`;
}
