// `castellan window synchronize [on|off]`: tmux synchronize-panes for a window.
import { defineCommand, EXIT, UsageError } from '../define-command.js';

export default defineCommand({
  name: 'window synchronize',
  usage: 'castellan window synchronize [on|off|toggle] [--window ID]',
  summary: 'Type into every pane of a window at once (default: toggle, the current window); prints "WINDOW on|off".',
  options: { window: { type: 'string' } },
  positionals: true,
  run: async (ctx, { values, positionals }) => {
    const mode = positionals[0] ?? 'toggle';
    if (positionals.length > 1 || !['on', 'off', 'toggle'].includes(mode)) throw new UsageError('expected on, off or toggle');
    const api = await ctx.connect();
    try {
      const r = await api.request<{ window_id: string; synchronized: boolean }>('window.synchronize', { mode, ...(values.window !== undefined ? { window_id: String(values.window) } : {}) });
      ctx.out(`${r.window_id} ${r.synchronized ? 'on' : 'off'}`);
      return EXIT.ok;
    } finally {
      api.close();
    }
  },
});
