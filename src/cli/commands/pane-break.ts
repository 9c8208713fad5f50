// `castellan pane break`: tmux break-pane — the pane moves to a new window of its own.
import { paneArg } from '../cli-util.js';
import { defineCommand, EXIT } from '../define-command.js';

export default defineCommand({
  name: 'pane break',
  usage: 'castellan pane break [--pane ID] [--name NAME] [--no-focus]',
  summary: 'Move a pane (default: the active one, or this one inside a pane) into a new window of its own; prints "PANE WINDOW".',
  options: { pane: { type: 'string' }, name: { type: 'string' }, 'no-focus': { type: 'boolean' } },
  run: async (ctx, { values }) => {
    const pane = paneArg(ctx, values.pane);
    const api = await ctx.connect();
    try {
      const r = await api.request<{ pane_id: string; window_id: string }>('pane.break', { ...(pane ? { pane_id: pane } : {}), ...(values.name !== undefined ? { name: String(values.name) } : {}), focus: !values['no-focus'] });
      ctx.out(`${r.pane_id} ${r.window_id}`);
      return EXIT.ok;
    } finally {
      api.close();
    }
  },
});
