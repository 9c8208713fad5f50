// `castellan pane focus`: focus a pane (and show its window to attached clients).
import { paneArg } from '../cli-util.js';
import { defineCommand, EXIT } from '../define-command.js';

export default defineCommand({
  name: 'pane focus',
  usage: 'castellan pane focus --pane ID',
  summary: 'Focus a pane; attached clients switch to its window.',
  options: { pane: { type: 'string' } },
  run: async (ctx, { values }) => {
    const pane = paneArg(ctx, values.pane, { required: true })!;
    const api = await ctx.connect();
    try {
      await api.request('pane.focus', { pane_id: pane }, { timeoutMs: 5000 });
      return EXIT.ok;
    } finally {
      api.close();
    }
  },
});
