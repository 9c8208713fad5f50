// `castellan window close`: close a window and its panes (tmux kill-window).
import { defineCommand, EXIT } from '../define-command.js';
import { windowId } from '../window-arg.js';

export default defineCommand({
  name: 'window close',
  usage: 'castellan window close [--window ID|N]',
  summary: 'Close a window and end every pane in it (default: the one this runs in, else the one clients see).',
  options: { window: { type: 'string' } },
  run: async (ctx, { values }) => {
    const api = await ctx.connect();
    try {
      const id = await windowId(ctx, api, values.window);
      await api.request('window.close', { window_id: id }, { timeoutMs: 5000 });
      ctx.out(id);
      return EXIT.ok;
    } finally {
      api.close();
    }
  },
});
