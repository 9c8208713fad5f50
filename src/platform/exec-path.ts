// Finding a program as a shell would: one lookup for everything that asks "can this run?" or "is it on PATH?".
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

/** An executable regular file (a directory with its x bit is not a program). */
export function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

export interface FindOptions {
  /** The PATH to search (colon-separated); default /usr/bin:/bin, as a shell without PATH. */
  path?: string;
  /** Relative names and relative PATH entries resolve against this directory; without it, relative PATH entries are skipped (they depend on a cwd). */
  cwd?: string;
}

/**
 * Where `name` runs from: a name with a slash is that file (relative to `cwd`), a bare name the first executable
 * file on PATH. Undefined when there is none.
 */
export function findExecutable(name: string, o: FindOptions = {}): string | undefined {
  if (!name) return undefined;
  if (name.includes('/')) {
    const p = isAbsolute(name) ? name : o.cwd ? resolve(o.cwd, name) : undefined;
    return p && isExecutableFile(p) ? p : undefined;
  }
  for (const dir of (o.path ?? '/usr/bin:/bin').split(delimiter)) {
    if (!dir || (!isAbsolute(dir) && !o.cwd)) continue;
    const p = join(o.cwd ? resolve(o.cwd, dir) : dir, name);
    if (isExecutableFile(p)) return p;
  }
  return undefined;
}
