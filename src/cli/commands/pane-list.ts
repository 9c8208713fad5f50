// `castellan pane list`: panes with size, process and agent state.
import type { PaneInfo } from '../../api/pane-info.js';
import { table } from '../cli-util.js';
import { defineCommand, EXIT } from '../define-command.js';

export default defineCommand({
  name: 'pane list',
  usage: 'castellan pane list [--window w1] [--json]',
  summary: 'List panes (window order) with size, foreground program and agent state.',
  options: { window: { type: 'string' }, json: { type: 'boolean' } },
  run: async (ctx, { values }) => {
    const api = await ctx.connect();
    try {
      const { panes } = await api.request<{ panes: PaneInfo[] }>('pane.list', values.window ? { window_id: String(values.window) } : {}, { timeoutMs: 5000 });
      if (values.json) ctx.out(JSON.stringify(panes));
      else {
        const rows = [['PANE', 'SIZE', 'PROGRAM', 'AGENT', 'STATE', 'TITLE']];
        for (const p of panes) rows.push([`${p.pane_id}${p.active ? '*' : ''}`, `${p.cols}x${p.rows}`, p.exited ? `(exited ${p.exited.code ?? 'sig'})` : p.foreground ?? p.command[0], p.agent.name ?? '-', p.agent.state, p.title]);
        ctx.out(table(rows));
      }
      return EXIT.ok;
    } finally {
      api.close();
    }
  },
});
