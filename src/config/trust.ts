// Trust: which repository files (castellan.toml, .castellan/local.toml, agent definitions) may run or choose programs.
// The one place that decides it, for every layer and every setting; hooks, agents and the server only ask.
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { z } from 'zod';
import type { PartialConfig } from './schema.js';

/** `trusted`: hash recorded for this repository and equal; `untrusted`: never trusted here; `changed`: trusted once, content differs now. */
export type TrustStatus = 'trusted' | 'untrusted' | 'changed';

const entrySchema = z.object({
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  trusted_at: z.string().optional(),
  /** The repository (its real path) the file was trusted for; a file reached from another repository is not trusted there. */
  root: z.string().optional(),
});
const storeSchema = z.object({ version: z.literal(1), files: z.record(z.string(), entrySchema) });
export type TrustEntry = z.infer<typeof entrySchema>;
export type TrustData = z.infer<typeof storeSchema>;

/** The trust store is small; anything bigger is not ours and is treated as corrupt (nothing trusted). */
const MAX_STORE_BYTES = 4 * 1024 * 1024;

export const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');

const real = (p: string): string => {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
};

/**
 * The key a file is trusted under: where it is reached from (its directory's real path plus its own name), not
 * what it points to. A `castellan.toml` that is a symlink to a trusted repository's file is its own, untrusted key:
 * it would run that file's hooks with this repository's scripts.
 */
export function canonicalPath(path: string): string {
  const abs = resolve(path);
  return join(real(dirname(abs)), basename(abs));
}

/** The real path of a repository root, as trust entries record it. */
export const canonicalRoot = (root: string): string => real(resolve(root));

/**
 * Reads the store; a missing file is an empty store. A corrupt one is also treated as empty (nothing
 * trusted — fail closed) and reported through `problem`.
 */
export function readTrust(trustFile: string): { data: TrustData; problem?: string } {
  const empty = (): TrustData => ({ version: 1, files: {} });
  let text: string;
  try {
    const buf = readFileSync(trustFile);
    if (buf.length > MAX_STORE_BYTES) return { data: empty(), problem: `${trustFile} is larger than ${MAX_STORE_BYTES} bytes; nothing is trusted until it is rewritten` };
    text = buf.toString('utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? { data: empty() } : { data: empty(), problem: `cannot read ${trustFile}: ${(e as Error).message}` };
  }
  try {
    const parsed = storeSchema.safeParse(JSON.parse(text));
    if (parsed.success) return { data: parsed.data };
    return { data: empty(), problem: `${trustFile} is not a valid trust store; nothing is trusted until it is rewritten` };
  } catch {
    return { data: empty(), problem: `${trustFile} is not valid JSON; nothing is trusted until it is rewritten` };
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

/**
 * Whether `path`, with content hash `contentSha`, is trusted in the repository `root`. An entry binds to the
 * repository it was given for; an old entry without one counts only for a file inside the repository.
 */
export function trustStatus(data: TrustData, path: string, contentSha: string | undefined, root: string): TrustStatus {
  const key = canonicalPath(path);
  const entry = Object.hasOwn(data.files, key) ? data.files[key] : undefined;
  if (!entry) return 'untrusted';
  const here = canonicalRoot(root);
  if (entry.root !== undefined ? entry.root !== here : !key.startsWith(here + sep)) return 'untrusted';
  return contentSha !== undefined && entry.sha256 === contentSha ? 'trusted' : 'changed';
}

/** The repository a config file belongs to: the folder holding its `.castellan/`, else its own folder. */
export function repoRootOf(path: string): string {
  const parts = resolve(path).split(sep);
  const at = parts.lastIndexOf('.castellan');
  return at > 0 ? parts.slice(0, at).join(sep) || sep : dirname(resolve(path));
}

/** Records a file's current content hash for repository `root`; returns the key and hash. Throws when the file cannot be read. */
export function trustFile(trustFile: string, path: string, root: string = repoRootOf(path), now = new Date()): { path: string; sha256: string } {
  const key = canonicalPath(path);
  const hash = sha256(readFileSync(key));
  const { data } = readTrust(trustFile);
  data.files[key] = { sha256: hash, trusted_at: now.toISOString(), root: canonicalRoot(root) };
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

// ---- settings from a file that is not trusted ----

/**
 * What an untrusted repository file may set, per section. Anything not listed here, including sections added
 * later, is inert: a new setting that runs or chooses a program cannot slip through by being forgotten.
 * - apply: looks only (colours, borders, mouse): used as written.
 * - own: governance and hooks, whose own trust rules apply (hooks inert, governance only tightens).
 * - tighten: delegation limits, used only where lower than what is in force.
 */
const UNTRUSTED: Readonly<Record<string, 'apply' | 'own' | 'tighten'>> = { ui: 'apply', governance: 'own', hooks: 'own', limits: 'tighten' };

export interface IgnoredSetting {
  path: Array<string | number>;
  message: string;
}

const isTable = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);

/** The leaf settings under a value, as paths (a table of tables is walked; lists are one setting). */
function leaves(v: unknown, path: Array<string | number>): Array<Array<string | number>> {
  if (!isTable(v) || Object.keys(v).length === 0) return [path];
  return Object.entries(v).flatMap(([k, sub]) => leaves(sub, [...path, k]));
}

/**
 * The part of an untrusted (or changed) repository file's settings that takes effect, and what was ignored and
 * why. `inForce` is the config of the trusted layers, for the settings that may only tighten.
 */
export function untrustedSettings(
  value: PartialConfig,
  file: string,
  status: Exclude<TrustStatus, 'trusted'>,
  inForce: { limits: { max_depth: number; max_children: number } },
): { value: PartialConfig; ignored: IgnoredSetting[] } {
  const why = status === 'untrusted' ? `${file} is not trusted` : `${file} changed since it was trusted`;
  const out: Record<string, unknown> = {};
  const ignored: IgnoredSetting[] = [];
  for (const [section, v] of Object.entries(value)) {
    const rule = Object.hasOwn(UNTRUSTED, section) ? UNTRUSTED[section] : undefined;
    if (rule === 'apply') out[section] = v;
    else if (rule === 'tighten' && section === 'limits' && isTable(v)) {
      const limits: Record<string, unknown> = {};
      for (const [k, n] of Object.entries(v)) {
        const cur = (inForce.limits as Record<string, number | undefined>)[k];
        if (typeof n === 'number' && typeof cur === 'number' && n <= cur) limits[k] = n;
        else ignored.push({ path: ['limits', k], message: `ignored: ${why}, and its limits may only be lower than yours until you run \`castellan trust\`` });
      }
      out.limits = limits;
    } else if (rule !== 'own') {
      for (const p of leaves(v, [section])) {
        ignored.push({ path: p, message: `ignored: ${why}; settings that run or choose a program (shell, keys, agents, ...) apply only after \`castellan trust\`` });
      }
    }
  }
  return { value: out as PartialConfig, ignored };
}
