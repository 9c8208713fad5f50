// A pane that starts in a new worktree (agent.start, pane.split with `worktree`): made first, paired once the pane exists, taken back if it never does.
import type { WorktreeManager } from './manager.js';

export interface WorktreeStart {
  cwd: string;
  env: Record<string, string>;
  /** The pane opened: pair it (the border shows the branch from now). */
  opened(pane: string): { id: string; branch: string; path: string; base: string };
  /** The pane did not open: remove the untouched worktree and its branch. */
  failed(): Promise<void>;
}

/** `worktree`: true for a default branch name (castellan/AGENT-ID), or the branch name to create. */
export async function startInWorktree(m: WorktreeManager, p: { cwd: string; worktree: true | string; agent?: string; parent?: string }): Promise<WorktreeStart> {
  const r = await m.create({ cwd: p.cwd, agent: p.agent, branch: typeof p.worktree === 'string' ? p.worktree : undefined, parent: p.parent });
  return {
    cwd: r.path,
    // For the agent's own tools and scripts; governance reads the marker in the git admin dir instead (see where.ts).
    env: { CASTELLAN_WORKTREE: r.path, CASTELLAN_BRANCH: r.branch },
    opened: (pane) => {
      m.pair(r.id, pane);
      return { id: r.id, branch: r.branch, path: r.path, base: r.base };
    },
    failed: () => m.abandon(r.id),
  };
}
