// A pane that starts in a new worktree (agent.start, pane.split with `worktree`): made first, paired once the pane exists, taken back if it never does.
import type { WorktreeManager } from './manager.js';

export interface WorktreeStart {
  cwd: string;
  env: Record<string, string>;
  /** The pane opened: pair it (the border shows the branch from now). */
  opened(pane: string): { id: string; branch: string; path: string; base: string; base_uncommitted?: string[]; note?: string };
  /** The pane did not open: remove the untouched worktree and its branch. */
  failed(): Promise<void>;
}

/** `worktree`: true for a default branch name (castellan/AGENT-ID), or the branch name to create. */
export async function startInWorktree(m: WorktreeManager, p: { cwd: string; worktree: true | string; agent?: string; parent?: string }): Promise<WorktreeStart> {
  const { rec: r, baseUncommitted: dirty } = await m.create({ cwd: p.cwd, agent: p.agent, branch: typeof p.worktree === 'string' ? p.worktree : undefined, parent: p.parent });
  // Started anyway (the base's files are untouched), and said, so nobody expects the agent to see those edits.
  const said = dirty.length
    ? { base_uncommitted: dirty, note: `the base (${r.base || r.baseCommit.slice(0, 10)} in ${r.repo}) has uncommitted changes that are not in this worktree: ${dirty.slice(0, 5).join(', ')}${dirty.length > 5 ? ', …' : ''}. Commit them and rebase the worktree to give them to the agent` }
    : {};
  return {
    cwd: r.path,
    // For the agent's own tools and scripts; governance reads the marker in the git admin dir instead (see where.ts).
    env: { CASTELLAN_WORKTREE: r.path, CASTELLAN_BRANCH: r.branch },
    opened: (pane) => {
      m.pair(r.id, pane);
      return { id: r.id, branch: r.branch, path: r.path, base: r.base, ...said };
    },
    failed: () => m.abandon(r.id),
  };
}
