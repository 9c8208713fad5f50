// Where the three config layers live, seen from a directory: cheap to import (no schema), so a CLI call can look first.
import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

export type LayerName = 'user' | 'project' | 'local';

const isDir = (p: string) => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

/**
 * The nearest directory upward from `cwd` holding `castellan.toml`, a `.castellan/` directory or `.git`;
 * else `cwd`. The home directory's `.castellan/` is the user layer, not a project, so with `home` given
 * it does not count as a marker.
 */
export function findProjectRoot(cwd: string, opts: { home?: string } = {}): string {
  const start = resolve(cwd);
  const home = opts.home ? resolve(opts.home) : undefined;
  try {
    for (let dir = start; ; dir = dirname(dir)) {
      if (existsSync(join(dir, 'castellan.toml')) || existsSync(join(dir, '.git'))) return dir;
      if (dir !== home && isDir(join(dir, '.castellan'))) return dir;
      if (dirname(dir) === dir) return start;
    }
  } catch {
    return start;
  }
}

export function layerPaths(projectRoot: string, home: string): Record<LayerName, string> {
  return {
    user: join(home, '.castellan', 'config.toml'),
    project: join(projectRoot, 'castellan.toml'),
    local: join(projectRoot, '.castellan', 'local.toml'),
  };
}
