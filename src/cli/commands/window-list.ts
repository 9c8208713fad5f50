// `castellan window list`: windows in bar order.
import { table } from '../cli-util.js';
import { defineCommand, EXIT } from '../define-command.js';

interface Win { window_id: string; index: number; name: string; active_pane: string; panes: string[]; zoomed: boolean; cols: number; rows: number }

export default defineCommand({
  name: 'window list',
  usage: 'castellan window list [--json]',
  summary: 'List windows with their panes.',
  options: { json: { type: 'boolean' } },
  run: async (ctx, { values }) => {
    const api = await ctx.connect();
    try {
      const { windows } = await api.request<{ windows: Win[] }>('window.list', {}, { timeoutMs: 5000 });
      if (values.json) ctx.out(JSON.stringify(windows));
      else ctx.out(table([['WINDOW', 'INDEX', 'NAME', 'PANES', 'SIZE'], ...windows.map((w) => [w.window_id, String(w.index), w.name, w.panes.join(','), `${w.cols}x${w.rows}${w.zoomed ? ' (zoomed)' : ''}`])]));
      return EXIT.ok;
    } finally {
      api.close();
    }
  },
});
