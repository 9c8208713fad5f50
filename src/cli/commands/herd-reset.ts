// `castellan herd reset`: forget hook reports for a pane; screen heuristics decide again.
import { paneArg } from '../cli-util.js';
import { defineCommand, EXIT } from '../define-command.js';

export default defineCommand({
  name: 'herd reset',
  usage: 'castellan herd reset --pane ID',
  summary: 'Forget a pane\'s hook-reported agent state (back to screen heuristics).',
  options: { pane: { type: 'string' }, json: { type: 'boolean' } },
  run: async (ctx, { values }) => {
    const pane = paneArg(ctx, values.pane, { required: true })!;
    const api = await ctx.connect();
    try {
      const r = await api.request<{ state: string }>('pane.reset_agent', { pane_id: pane }, { timeoutMs: 5000 });
      ctx.out(values.json ? JSON.stringify(r) : `${pane}: reset; state is ${r.state}`);
      return EXIT.ok;
    } finally {
      api.close();
    }
  },
});
