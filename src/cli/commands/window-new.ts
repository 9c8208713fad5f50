// `castellan window new`: open a window, print its id and its pane's id.
import { defineCommand, EXIT } from '../define-command.js';

export default defineCommand({
  name: 'window new',
  usage: 'castellan window new [--name NAME] [--cwd DIR] [--no-focus] [--json] [-- COMMAND...]',
  summary: 'Open a new window running COMMAND (or your shell); prints "WINDOW PANE".',
  options: { name: { type: 'string' }, cwd: { type: 'string' }, 'no-focus': { type: 'boolean' }, json: { type: 'boolean' } },
  run: async (ctx, { values, rest }) => {
    const api = await ctx.connect();
    try {
      const r = await api.request<{ window_id: string; pane_id: string }>('window.new', {
        ...(values.name !== undefined ? { name: String(values.name) } : {}),
        ...(rest.length ? { command: rest } : {}),
        cwd: values.cwd !== undefined ? String(values.cwd) : ctx.cwd,
        focus: !values['no-focus'],
      }, { timeoutMs: 10_000 });
      ctx.out(values.json ? JSON.stringify(r) : `${r.window_id} ${r.pane_id}`);
      return EXIT.ok;
    } finally {
      api.close();
    }
  },
});
