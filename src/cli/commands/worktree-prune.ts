// `castellan worktree prune`: remove the agents' worktrees that are clean and merged and that no pane works in.
import { defineCommand, EXIT } from '../define-command.js';

interface Row { id: string; branch: string; path: string; why?: string }

export default defineCommand({
  name: 'worktree prune',
  usage: 'castellan worktree prune [--json]',
  summary: 'Remove the agents\' worktrees that are clean, merged and paneless (and their branches); say why others stay.',
  options: { json: { type: 'boolean' } },
  run: async (ctx, { values }) => {
    const api = await ctx.connect();
    try {
      const r = await api.request<{ removed: Row[]; kept: Row[] }>('worktree.prune', {}, { timeoutMs: 120_000 });
      if (values.json) ctx.out(JSON.stringify(r));
      else {
        for (const w of r.removed) ctx.out(`removed ${w.branch} ${w.path}`);
        for (const w of r.kept) ctx.out(`kept    ${w.branch} (${w.why})`);
        if (!r.removed.length && !r.kept.length) ctx.out('no worktrees');
      }
      return EXIT.ok;
    } finally {
      api.close();
    }
  },
});
