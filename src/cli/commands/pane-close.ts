// `castellan pane close`: close a pane and end its program.
import { paneArg } from '../cli-util.js';
import { defineCommand, EXIT } from '../define-command.js';

export default defineCommand({
  name: 'pane close',
  usage: 'castellan pane close --pane ID',
  summary: 'Close a pane (its programs get SIGHUP, then SIGTERM, then SIGKILL).',
  options: { pane: { type: 'string' } },
  run: async (ctx, { values }) => {
    const pane = paneArg(ctx, values.pane, { required: true })!;
    const api = await ctx.connect();
    try {
      await api.request('pane.close', { pane_id: pane }, { timeoutMs: 5000 });
      return EXIT.ok;
    } finally {
      api.close();
    }
  },
});
