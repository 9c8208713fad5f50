// `castellan worktree discard`: throw away an agent's worktree and its branch, whatever they hold (you asked).
import { paneArg } from '../cli-util.js';
import { defineCommand, EXIT, UsageError } from '../define-command.js';

export default defineCommand({
  name: 'worktree discard',
  usage: 'castellan worktree discard (--pane ID | --id ID|BRANCH) [--keep-branch] [--json]',
  summary: 'Remove an agent worktree and delete its branch, uncommitted and unmerged work included.',
  options: { pane: { type: 'string' }, id: { type: 'string' }, 'keep-branch': { type: 'boolean' }, json: { type: 'boolean' } },
  run: async (ctx, { values }) => {
    const pane = paneArg(ctx, values.pane);
    const id = values.id !== undefined ? String(values.id) : undefined;
    if (!pane === !id) throw new UsageError('give --pane ID or --id ID (castellan worktree list shows them)');
    const api = await ctx.connect();
    try {
      const r = await api.request<{ removed: string; branch_deleted: boolean }>('worktree.discard', { ...(pane ? { pane_id: pane } : { id }), keep_branch: !!values['keep-branch'] }, { timeoutMs: 60_000 });
      ctx.out(values.json ? JSON.stringify(r) : `removed ${r.removed}${r.branch_deleted ? ' and its branch' : ''}`);
      return EXIT.ok;
    } finally {
      api.close();
    }
  },
});
