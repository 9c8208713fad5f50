// Is this directory inside an agent worktree castellan made? Read from the worktree's git admin dir, so any process (a hook bridge, `castellan exec`) can tell.
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { readFileBounded } from '../platform/read-file.js';
import { MARKER_FILE, markerSchema } from './record.js';

const MAX_LEVELS = 64;

/**
 * The worktree and branch of `cwd`, or undefined. A linked worktree has a `.git` file (`gitdir: …/worktrees/NAME`);
 * castellan's marker lives in that admin dir, outside the working tree, so an agent cannot commit or edit it by
 * accident, and unsetting an environment variable does not hide where it is.
 */
export function agentWorktreeAt(cwd: string): { worktree: string; branch: string } | undefined {
  let dir = resolve(cwd);
  for (let i = 0; i < MAX_LEVELS; i++) {
    const dotgit = readFileBounded(join(dir, '.git'), 4096);
    if (dotgit.ok) {
      const m = /^gitdir: (.+)$/m.exec(dotgit.buf.toString('utf8'));
      if (!m) return undefined;
      const admin = isAbsolute(m[1].trim()) ? m[1].trim() : resolve(dir, m[1].trim());
      const marker = readFileBounded(join(admin, MARKER_FILE), 16 * 1024, { noFollow: true });
      if (!marker.ok) return undefined;
      try {
        const p = markerSchema.safeParse(JSON.parse(marker.buf.toString('utf8')));
        return p.success ? { worktree: p.data.path, branch: p.data.branch } : undefined;
      } catch {
        return undefined;
      }
    }
    // A .git directory: the main working tree of a repository, not an agent's.
    if (dotgit.code === 'EISDIR') return undefined;
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
  return undefined;
}
