// `castellan herd list`: every pane's agent and badge state, for people and scripts.
import type { PaneInfo } from '../../api/pane-info.js';
import { ago, table } from '../cli-util.js';
import { defineCommand, EXIT } from '../define-command.js';
import { policyWarning } from '../policy-warning.js';

export default defineCommand({
  name: 'herd list',
  usage: 'castellan herd list [--json]',
  summary: 'List panes with their agent, state, where the state came from, for how long, and the agent\'s message about it.',
  options: { json: { type: 'boolean' } },
  run: async (ctx, { values }) => {
    const broken = await policyWarning(ctx);
    if (broken) ctx.err(broken);
    const api = await ctx.connect();
    try {
      const { panes } = await api.request<{ panes: PaneInfo[] }>('pane.list', {}, { timeoutMs: 5000 });
      if (values.json) {
        ctx.out(JSON.stringify(panes.map((p) => ({ pane_id: p.pane_id, title: p.title, agent: p.agent.name ?? null, state: p.agent.state, source: p.agent.source ?? null, message: p.agent.message ?? null, since: p.agent.since, hook_locked: p.agent.hook_locked, exited: p.exited ?? null, worktree: p.worktree ?? null, branch: p.branch ?? null, cwd_gone: p.cwd_gone ?? null }))));
        return EXIT.ok;
      }
      const now = Date.now();
      const rows = [['PANE', 'AGENT', 'STATE', 'SOURCE', 'FOR', 'TITLE', 'MESSAGE']];
      const gone: string[] = [];
      for (const p of panes) {
        // `!`: restored elsewhere, its directory was gone; the line under the table says which.
        if (p.cwd_gone) gone.push(`! ${p.pane_id}: its directory ${p.cwd_gone} was gone when it was restored; it runs in ${p.cwd}`);
        rows.push([p.cwd_gone ? `${p.pane_id} !` : p.pane_id, p.agent.name ?? '-', p.exited ? `exited(${p.exited.code ?? 'sig'})` : p.agent.state, p.agent.source ?? '-', ago(now - p.agent.since), p.title, p.agent.message ?? '']);
      }
      ctx.out(table(rows));
      for (const g of gone) ctx.out(g);
      return EXIT.ok;
    } finally {
      api.close();
    }
  },
});
