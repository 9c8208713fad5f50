// The machine profiles file: read bounded and checked (a bad file is an error, never a crash), written atomically.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { readFileBounded } from '../platform/read-file.js';
import { formatIssues } from './issues.js';
import { type MachineProfile, profilesFileSchema } from './profile.js';

/** 256 profiles of at most ~400 bytes each fit many times over. */
export const MAX_FILE_BYTES = 256 * 1024;

export class ProfilesFileError extends Error {}

/** Every profile in the file (none when it does not exist); throws ProfilesFileError on a file that is not ours. */
export function readProfiles(file: string): MachineProfile[] {
  const r = readFileBounded(file, MAX_FILE_BYTES, { noFollow: true });
  if (!r.ok) {
    if (r.code === 'ENOENT') return [];
    throw new ProfilesFileError(`${file}: ${r.message}`);
  }
  const text = r.buf.toString('utf8');
  if (text.includes('\u0000') || text.includes('\ufffd')) throw new ProfilesFileError(`${file}: not a text file (fix or remove it)`);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new ProfilesFileError(`${file}: not valid JSON (fix or remove it)`);
  }
  const parsed = profilesFileSchema.safeParse(data);
  if (!parsed.success) throw new ProfilesFileError(`${file}: ${formatIssues(parsed.error)} (fix or remove it)`);
  const seen = new Set<string>();
  for (const m of parsed.data.machines) {
    if (seen.has(m.name)) throw new ProfilesFileError(`${file}: machine "${m.name}" appears twice (fix or remove it)`);
    seen.add(m.name);
  }
  return parsed.data.machines;
}

/** Writes the profiles through a temp file and a rename: a crash leaves the old file or the new one, never half of one. */
export function writeProfiles(file: string, machines: MachineProfile[]): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const clean = machines.map((m) => ({ name: m.name, target: m.target, ...(m.session ? { session: m.session } : {}), ...(m.disabled ? { disabled: true } : {}) }));
  const data = profilesFileSchema.parse({ version: 1, machines: clean });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(data, null, 2) + '\n', { mode: 0o600 });
  renameSync(tmp, file);
}

/** Reads, changes and writes the file; `change` throws to refuse. */
export function updateProfiles(file: string, change: (machines: MachineProfile[]) => MachineProfile[]): MachineProfile[] {
  const next = change(readProfiles(file));
  writeProfiles(file, next);
  return next;
}
