// `castellan pane resize`: move a pane's border (tmux resize-pane -L/-R/-U/-D).
import { RESIZE_CELLS_MAX } from '../../core/action-limits.js';
import { intArg, paneArg } from '../cli-util.js';
import { defineCommand, EXIT, UsageError } from '../define-command.js';

const DIRS = ['left', 'right', 'up', 'down'];

export default defineCommand({
  name: 'pane resize',
  usage: 'castellan pane resize [--pane ID] --direction left|right|up|down [--cells N]',
  summary: 'Move a pane\'s border N cells (default 1) as tmux resize-pane does: the border after the pane, before it for the last pane.',
  options: { pane: { type: 'string' }, direction: { type: 'string', short: 'd' }, cells: { type: 'string' } },
  run: async (ctx, { values }) => {
    const direction = String(values.direction ?? '');
    if (!DIRS.includes(direction)) throw new UsageError(`--direction must be one of ${DIRS.join(', ')}`);
    const cells = intArg(values.cells, 'cells', 1, RESIZE_CELLS_MAX) ?? 1;
    const pane = paneArg(ctx, values.pane) ?? ctx.env.CASTELLAN_PANE_ID;
    const api = await ctx.connect();
    try {
      await api.request('pane.resize', { ...(pane ? { pane_id: pane } : {}), direction, cells }, { timeoutMs: 5000 });
      return EXIT.ok;
    } finally {
      api.close();
    }
  },
});
