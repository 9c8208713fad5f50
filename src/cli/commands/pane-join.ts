// `castellan pane join`: tmux join-pane — bring a pane next to another, from any window.
import { paneArg } from '../cli-util.js';
import { defineCommand, EXIT, UsageError } from '../define-command.js';

const DIRS = ['right', 'down', 'left', 'up'];

export default defineCommand({
  name: 'pane join',
  usage: 'castellan pane join --pane ID [--target ID] [--direction right|down|left|up] [--no-focus]',
  summary: 'Move pane ID beside the target pane (default: the active one), splitting it; a window left empty closes.',
  options: { pane: { type: 'string' }, target: { type: 'string' }, direction: { type: 'string' }, 'no-focus': { type: 'boolean' } },
  run: async (ctx, { values }) => {
    const pane = paneArg(ctx, values.pane, { required: true })!;
    const target = paneArg(ctx, values.target, { flag: '--target' });
    const direction = values.direction === undefined ? 'right' : String(values.direction);
    if (!DIRS.includes(direction)) throw new UsageError(`--direction must be one of ${DIRS.join(', ')}`);
    const api = await ctx.connect();
    try {
      const r = await api.request<{ pane_id: string; window_id: string }>('pane.join', { pane_id: pane, ...(target ? { target } : {}), direction, focus: !values['no-focus'] });
      ctx.out(`${r.pane_id} ${r.window_id}`);
      return EXIT.ok;
    } finally {
      api.close();
    }
  },
});
