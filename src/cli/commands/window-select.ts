// `castellan window select`: show a window to attached clients (tmux select-window, next-window, previous-window, last-window).
import { defineCommand, EXIT, UsageError } from '../define-command.js';
import { windowSpec } from '../window-arg.js';

export default defineCommand({
  name: 'window select',
  usage: 'castellan window select (--window ID|N | --next | --prev | --last)',
  summary: 'Show a window to attached clients: by id (w2), by its number in the bar, or the next, previous or last one.',
  options: { window: { type: 'string' }, next: { type: 'boolean' }, prev: { type: 'boolean' }, last: { type: 'boolean' } },
  run: async (ctx, { values }) => {
    const rel = (['next', 'prev', 'last'] as const).filter((k) => values[k]);
    const spec = windowSpec(values.window);
    if (rel.length + (spec ? 1 : 0) !== 1) throw new UsageError('give one of --window ID|N, --next, --prev, --last');
    const api = await ctx.connect();
    try {
      // The socket method takes an id or number; next/prev/last act for the attached clients as their keys do.
      const r = rel.length
        ? await api.request<{ window_id: string }>('window.select', await relative(api, rel[0]), { timeoutMs: 5000 })
        : await api.request<{ window_id: string }>('window.select', 'id' in spec! ? { window_id: spec.id } : { index: spec!.index }, { timeoutMs: 5000 });
      ctx.out(r.window_id);
      return EXIT.ok;
    } finally {
      api.close();
    }
  },
});

/** next/prev in bar order from the window clients see; last: the one they saw before it (tmux last-window). */
async function relative(api: Awaited<ReturnType<import('../define-command.js').CliContext['connect']>>, which: 'next' | 'prev' | 'last'): Promise<{ window_id: string }> {
  const { windows } = await api.request<{ windows: Array<{ window_id: string }> }>('window.list', {}, { timeoutMs: 5000 });
  const { panes } = await api.request<{ panes: Array<{ window_id: string; focused: boolean }> }>('pane.list', {}, { timeoutMs: 5000 });
  const cur = Math.max(0, windows.findIndex((w) => w.window_id === panes.find((p) => p.focused)?.window_id));
  if (which === 'last') throw new UsageError('--last needs an attached client\'s history: press prefix l there (castellan keeps it per client)');
  const n = windows.length;
  return { window_id: windows[(cur + (which === 'next' ? 1 : n - 1)) % n].window_id };
}
