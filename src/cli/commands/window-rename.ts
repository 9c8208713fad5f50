// `castellan window rename`: name a window in the bar (tmux rename-window).
import { defineCommand, EXIT, UsageError } from '../define-command.js';
import { windowId } from '../window-arg.js';

export default defineCommand({
  name: 'window rename',
  usage: 'castellan window rename [--window ID|N] [--] NAME',
  summary: 'Name a window (default: the one this runs in, else the one clients see); an empty NAME gives the bar back to its pane\'s title.',
  options: { window: { type: 'string' } },
  positionals: true,
  run: async (ctx, { values, positionals, rest }) => {
    // A name may start with '-' after `--`.
    const words = [...positionals, ...rest];
    if (!words.length) throw new UsageError('NAME is missing');
    const api = await ctx.connect();
    try {
      const id = await windowId(ctx, api, values.window);
      await api.request('window.rename', { window_id: id, name: words.join(' ') }, { timeoutMs: 5000 });
      return EXIT.ok;
    } finally {
      api.close();
    }
  },
});
