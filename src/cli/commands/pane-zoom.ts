// `castellan pane zoom`: a pane over its whole window, or the layout again (tmux resize-pane -Z).
import { paneArg } from '../cli-util.js';
import { defineCommand, EXIT, UsageError } from '../define-command.js';

export default defineCommand({
  name: 'pane zoom',
  usage: 'castellan pane zoom [--pane ID] [--on | --off]',
  summary: 'Zoom a pane to its whole window, or unzoom (toggles unless --on or --off); prints "zoomed" or "unzoomed".',
  options: { pane: { type: 'string' }, on: { type: 'boolean' }, off: { type: 'boolean' } },
  run: async (ctx, { values }) => {
    if (values.on && values.off) throw new UsageError('--on or --off, not both');
    const pane = paneArg(ctx, values.pane) ?? ctx.env.CASTELLAN_PANE_ID;
    const api = await ctx.connect();
    try {
      const r = await api.request<{ zoomed: boolean }>('pane.zoom', { ...(pane ? { pane_id: pane } : {}), mode: values.on ? 'on' : values.off ? 'off' : 'toggle' }, { timeoutMs: 5000 });
      ctx.out(r.zoomed ? 'zoomed' : 'unzoomed');
      return EXIT.ok;
    } finally {
      api.close();
    }
  },
});
