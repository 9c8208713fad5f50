// `castellan worktree list`: the agents' worktrees, their panes and what they hold (kept until pruned with nothing in them, or discarded).
import { table } from '../cli-util.js';
import { defineCommand, EXIT } from '../define-command.js';

interface Row { id: string; branch: string; base: string; path: string; pane_id: string | null; agent: string | null; summary: { files: number; added: number; removed: number; ahead: number; uncommitted: number; missing?: boolean } | null; work: string[] | null }

/** What the worktree holds, as prune sees it: "clean, merged" only when removing it would lose nothing. */
export function stateOf(w: Row): string {
  const gone = w.summary?.missing ? ['deleted by hand'] : [];
  if (w.work === null) return [...gone, '?'].join(', ');
  return [...gone, ...(w.work.length ? w.work : ['clean, merged'])].join('; ');
}

export default defineCommand({
  name: 'worktree list',
  usage: 'castellan worktree list [--json]',
  summary: 'List the agents\' git worktrees: branch, pane, changes, and the work each holds (what prune keeps it for).',
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
