// Is a program path recorded in a snapshot the file the pane's shell runs for its name? What a relaunch by name runs.
import { accessSync, constants, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';

/**
 * Whether absolute `path` is the same file (device and inode, symlinks followed) as the first executable regular file
 * named `name` in `pathEnv`'s directories, as a shell's PATH search finds it. Empty and relative PATH entries are
 * skipped: they mean the shell's current directory, a snapshot's, and no place a relaunched program comes from. Never throws.
 */
export function onPath(name: string, path: string, pathEnv: string | undefined): boolean {
  if (!name || name.includes('/') || name === '.' || name === '..' || !isAbsolute(path)) return false;
  for (const dir of (pathEnv ?? '').split(':')) {
    if (!isAbsolute(dir)) continue;
    const candidate = join(dir, name);
    let found;
    try {
      found = statSync(candidate);
      if (!found.isFile()) continue;
      accessSync(candidate, constants.X_OK);
    } catch {
      continue;
    }
    // The first one found is what the shell runs: the recorded path is that file, or another program.
    try {
      const rec = statSync(path);
      return rec.dev === found.dev && rec.ino === found.ino;
    } catch {
      return false;
    }
  }
  return false;
}
