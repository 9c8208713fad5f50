// `castellan pane split`: open a pane next to another (default: the pane you run it in), print its id.
import { intArg, paneArg } from '../cli-util.js';
import { defineCommand, EXIT, UsageError } from '../define-command.js';

const DIRS = ['right', 'down', 'left', 'up'];

export default defineCommand({
  name: 'pane split',
  usage: 'castellan pane split [--pane ID] [--direction right|down|left|up] [--percent N] [--name NAME] [--cwd DIR] [--no-focus] [--json] [-- COMMAND...]',
  summary: 'Split a pane; the new pane runs COMMAND (or your shell). Prints the new pane id.',
  options: { pane: { type: 'string' }, direction: { type: 'string', short: 'd' }, percent: { type: 'string' }, name: { type: 'string' }, cwd: { type: 'string' }, 'no-focus': { type: 'boolean' }, json: { type: 'boolean' } },
  run: async (ctx, { values, rest }) => {
    const direction = String(values.direction ?? 'right');
    if (!DIRS.includes(direction)) throw new UsageError(`--direction must be one of ${DIRS.join(', ')}`);
    // From inside a pane, the natural target is that pane.
    const target = paneArg(ctx, values.pane) ?? ctx.env.CASTELLAN_PANE_ID;
    const api = await ctx.connect();
    try {
      const r = await api.request<{ pane_id: string; window_id: string }>('pane.split', {
        ...(target ? { pane_id: target } : {}),
        direction,
        ...(rest.length ? { command: rest } : {}),
        cwd: values.cwd !== undefined ? String(values.cwd) : ctx.cwd,
        ...(values.name !== undefined ? { name: String(values.name) } : {}),
        ...(values.percent !== undefined ? { percent: intArg(values.percent, 'percent', 1, 99) } : {}),
        focus: !values['no-focus'],
      }, { timeoutMs: 10_000 });
      ctx.out(values.json ? JSON.stringify(r) : r.pane_id);
      return EXIT.ok;
    } finally {
      api.close();
    }
  },
});
