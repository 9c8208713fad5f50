// A PATH that holds only POSIX utilities (and what a stock macOS adds: perl, ps, lsof), for running castellan's shell
// parts as a Mac would: no timeout(1), and shims that refuse GNU-only usage (date's %N, stat -c, readlink -f, long
// options) instead of quietly working as GNU coreutils would.
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findExecutable } from '../../src/platform/exec-path.js';

/** POSIX utilities (and perl/ps/lsof, which macOS ships) the shell parts may use; `timeout` is deliberately absent. */
export const POSIX_TOOLS = [
  'awk', 'basename', 'cat', 'chmod', 'cp', 'cut', 'dirname', 'env', 'expr', 'false', 'grep', 'head', 'id', 'kill', 'ln', 'ls',
  'mkdir', 'mkfifo', 'mv', 'od', 'perl', 'printf', 'ps', 'lsof', 'rm', 'rmdir', 'sed', 'sh', 'sleep', 'sort', 'tail', 'tee', 'test',
  'touch', 'tr', 'true', 'uname', 'wc',
];

/** GNU-only usage each shim refuses (exit 97, a message on stderr, a line in the log): args are matched one by one. */
const REFUSE: Record<string, string> = {
  date: `case $a in *%N*|--*|-d|-I*) bad=1 ;; esac`,
  stat: `case $a in -c|-c*|--*) bad=1 ;; esac`,
  readlink: `case $a in -f|-e|-m|-*f*|--*) bad=1 ;; esac`,
  head: `case $a in --*) bad=1 ;; esac`,
  sleep: `case $a in *[!0-9.]*) bad=1 ;; esac`,
  mktemp: `case $a in --*|-p) bad=1 ;; esac`,
};

export interface PosixPath {
  /** The directory to use as PATH. */
  dir: string;
  /** Where refused calls are noted, one line each. */
  log: string;
}

/** Makes `dir` (created) a PATH of POSIX tools: symlinks to this machine's, shims for the ones GNU extends, plus `extra`. */
export function posixPath(dir: string, extra: Record<string, string> = {}): PosixPath {
  // A fresh directory only: nothing in it may already point at a real tool.
  mkdirSync(dir, { recursive: false });
  const log = join(dir, '.refused');
  const real = (name: string) => findExecutable(name, { path: '/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin' });
  // Shims first, each created exclusively ('wx' fails on any existing name, a symlink included): a shim written
  // through a symlink to the real tool would replace the machine's own.
  for (const [name, check] of Object.entries(REFUSE)) {
    const path = real(name);
    if (!path) continue;
    writeFileSync(
      join(dir, name),
      `#!/bin/sh\nbad=\nfor a in "$@"; do ${check}; done\nif [ -n "$bad" ]; then echo "${name}: GNU-only usage refused: $*" >&2; echo "${name} $*" >> '${log}'; exit 97; fi\nexec '${path}' "$@"\n`,
      { flag: 'wx', mode: 0o755 },
    );
  }
  for (const name of POSIX_TOOLS) {
    const path = real(name);
    if (path && !existsSync(join(dir, name)) && !(name in REFUSE)) symlinkSync(path, join(dir, name));
  }
  for (const [name, target] of Object.entries(extra)) if (!existsSync(join(dir, name))) symlinkSync(target, join(dir, name));
  return { dir, log };
}
