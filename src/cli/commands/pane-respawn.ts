// `castellan pane respawn`: tmux respawn-pane — rerun an exited pane's command.
import { paneArg } from '../cli-util.js';
import { defineCommand, EXIT } from '../define-command.js';

export default defineCommand({
  name: 'pane respawn',
  usage: 'castellan pane respawn [--pane ID] [--kill]',
  summary: 'Run an exited pane\'s command again in its directory; --kill ends a running one first.',
  options: { pane: { type: 'string' }, kill: { type: 'boolean' } },
  run: async (ctx, { values }) => {
    const pane = paneArg(ctx, values.pane);
    const api = await ctx.connect();
    try {
      const r = await api.request<{ pane_id: string }>('pane.respawn', { ...(pane ? { pane_id: pane } : {}), kill: !!values.kill });
      ctx.out(r.pane_id);
      return EXIT.ok;
    } finally {
      api.close();
    }
  },
});
