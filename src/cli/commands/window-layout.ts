// `castellan window layout NAME`: tmux's select-layout; NAME is a preset, next or prev.
import { LAYOUT_NAMES } from '../../core/layout-presets.js';
import { defineCommand, EXIT } from '../define-command.js';

const CHOICES = [...LAYOUT_NAMES, 'next', 'prev'];

export default defineCommand({
  name: 'window layout',
  usage: `castellan window layout ${CHOICES.join('|')} [--window ID] [--json]`,
  summary: 'Arrange the panes of a window (default: the current one) in a preset layout; the first pane is the main one.',
  options: { window: { type: 'string' }, json: { type: 'boolean' } },
  positionals: true,
  run: async (ctx, { values, positionals }) => {
    const layout = positionals[0];
    if (positionals.length !== 1 || !CHOICES.includes(layout)) {
      ctx.err(`castellan window layout: expected one of ${CHOICES.join(', ')}`);
      return EXIT.usage;
    }
    const api = await ctx.connect();
    try {
      const r = await api.request<{ window_id: string; layout: string }>('window.layout', { layout, ...(values.window !== undefined ? { window_id: String(values.window) } : {}) });
      ctx.out(values.json ? JSON.stringify(r) : `${r.window_id} ${r.layout}`);
      return EXIT.ok;
    } finally {
      api.close();
    }
  },
});
