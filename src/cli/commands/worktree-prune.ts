// `castellan worktree prune`: remove the agents' worktrees that hold no work and that no pane works in; say why others stay.
import { defineCommand, EXIT } from '../define-command.js';

interface Row { id: string; branch: string; path: string; why?: string }

export default defineCommand({
  name: 'worktree prune',
  usage: 'castellan worktree prune [--include-ignored] [--json]',
  summary: 'Remove the agents\' worktrees that hold no work and no pane works in (and their branches); say why others stay.',
  details: [
    'Kept, with why: a worktree a pane works in, or one holding uncommitted changes, untracked files, ignored files,',
    'commits only it has (on its HEAD, detached or not, its branch, a branch made in it, or a reflog) or stashes made in it.',
    '--include-ignored also removes worktrees whose only leftovers are ignored files (build output, but maybe a secret.env).',
  ].join('\n'),
  options: { 'include-ignored': { type: 'boolean' }, json: { type: 'boolean' } },
  run: async (ctx, { values }) => {
    const api = await ctx.connect();
    try {
      const r = await api.request<{ removed: Row[]; kept: Row[] }>('worktree.prune', { include_ignored: !!values['include-ignored'] }, { timeoutMs: 120_000 });
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
