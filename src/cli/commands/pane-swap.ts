// `castellan pane swap`: exchange two panes' places (tmux swap-pane).
import { paneIdSchema } from '../../core/actions.js';
import { paneArg } from '../cli-util.js';
import { defineCommand, EXIT, UsageError } from '../define-command.js';

const WITH = ['next', 'prev', 'left', 'right', 'up', 'down'];

export default defineCommand({
  name: 'pane swap',
  usage: 'castellan pane swap [--pane ID] [--with ID|next|prev|left|right|up|down]',
  summary: 'Swap a pane with another of its window: by id, the next or previous in layout order (tmux swap-pane -D/-U), or a neighbour.',
  options: { pane: { type: 'string' }, with: { type: 'string' } },
  run: async (ctx, { values }) => {
    const w = String(values.with ?? 'next');
    if (!WITH.includes(w) && !paneIdSchema.safeParse(w).success) throw new UsageError(`--with must be a pane id (w1:p2) or one of ${WITH.join(', ')}`);
    const pane = paneArg(ctx, values.pane) ?? ctx.env.CASTELLAN_PANE_ID;
    const api = await ctx.connect();
    try {
      await api.request('pane.swap', { ...(pane ? { pane_id: pane } : {}), with: w }, { timeoutMs: 5000 });
      return EXIT.ok;
    } finally {
      api.close();
    }
  },
});
