// `castellan worktree list`: the agents' worktrees, their panes and what they hold (kept until merged and pruned, or discarded).
import { table } from '../cli-util.js';
import { defineCommand, EXIT } from '../define-command.js';

interface Row { id: string; branch: string; base: string; path: string; pane_id: string | null; agent: string | null; summary: { files: number; added: number; removed: number; ahead: number; uncommitted: number; missing?: boolean } | null; clean: boolean | null; merged: boolean | null }

export function stateOf(w: Row): string {
  if (w.summary?.missing) return 'deleted by hand';
  if (w.clean === null) return '?';
  if (w.clean && w.merged) return 'clean, merged';
  const ahead = w.summary?.ahead ?? 0;
  return [...(w.clean ? [] : [`${w.summary?.uncommitted ?? '?'} uncommitted`]), ...(w.merged ? [] : [`${ahead} unmerged commit${ahead === 1 ? '' : 's'}`])].join(', ');
}

export default defineCommand({
  name: 'worktree list',
  usage: 'castellan worktree list [--json]',
  summary: 'List the agents\' git worktrees: branch, pane, changes, and whether each is clean and merged.',
  options: { json: { type: 'boolean' } },
  run: async (ctx, { values }) => {
    const api = await ctx.connect();
    try {
      const { worktrees } = await api.request<{ worktrees: Row[] }>('worktree.list', {}, { timeoutMs: 60_000 });
      if (values.json) ctx.out(JSON.stringify(worktrees));
      else if (!worktrees.length) ctx.out('no worktrees (castellan agent start NAME --worktree makes one)');
      else
        ctx.out(
          table([
            ['ID', 'BRANCH', 'BASE', 'PANE', 'CHANGES', 'STATE', 'PATH'],
            ...worktrees.map((w) => [w.id, w.branch, w.base || '-', w.pane_id ?? '(closed)', w.summary ? `${w.summary.files}f +${w.summary.added} -${w.summary.removed}` : '?', stateOf(w), w.path]),
          ]),
        );
      return EXIT.ok;
    } finally {
      api.close();
    }
  },
});
