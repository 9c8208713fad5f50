// `castellan pane rename`: name a pane.
import { paneArg } from '../cli-util.js';
import { defineCommand, EXIT } from '../define-command.js';

export default defineCommand({
  name: 'pane rename',
  usage: 'castellan pane rename --pane ID NAME...',
  summary: 'Name a pane (shown in its border); an empty name restores the program\'s title.',
  positionals: true,
  options: { pane: { type: 'string' } },
  run: async (ctx, { values, positionals }) => {
    const pane = paneArg(ctx, values.pane, { required: true })!;
    const api = await ctx.connect();
    try {
      await api.request('pane.rename', { pane_id: pane, name: positionals.join(' ') }, { timeoutMs: 5000 });
      return EXIT.ok;
    } finally {
      api.close();
    }
  },
});
