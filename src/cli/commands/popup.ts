// `castellan popup` (tmux display-popup -E): a floating pty over an attached client's layout, closed when its program exits.
import { popupSizeSchema } from '../../core/popup-size-schema.js';
import { defineCommand, EXIT, UsageError } from '../define-command.js';
import { paneArg } from '../cli-util.js';

function size(v: unknown, flag: string): number | string | undefined {
  if (v === undefined) return undefined;
  const s = String(v);
  const r = popupSizeSchema.safeParse(/^\d+$/.test(s) ? Number(s) : s);
  if (!r.success) throw new UsageError(`${flag} ${s}: a size is cells (3 or more) or a percentage 1%-100%`);
  return r.data;
}

export default defineCommand({
  name: 'popup',
  usage: 'castellan popup [-w W] [-h H] [-d|--cwd DIR] [-T TITLE] [--pane ID] [--client ID] [--close] [--json] [-- COMMAND...]',
  summary: 'Open a popup on an attached client running COMMAND (default: your shell); it closes when COMMAND exits. Prints the popup id.',
  details: [
    'W and H are cells (border included) or a percentage of the terminal (default 80% x 75%), as tmux takes them;',
    'a size larger than the terminal is cut to fit. Keys go to the popup while it is open; prefix u closes it early',
    '(killing COMMAND). A popup is not a pane: not in the layout, not in snapshots, no agent badge.',
    'The client: --client, else one viewing --pane\'s window (default: this pane, inside castellan), else the most',
    'recently attached one. The directory: --cwd, else that pane\'s. --close closes the client\'s popup instead.',
  ].join('\n'),
  options: {
    width: { type: 'string', short: 'w' },
    height: { type: 'string', short: 'h' },
    cwd: { type: 'string', short: 'd' },
    title: { type: 'string', short: 'T' },
    pane: { type: 'string' },
    client: { type: 'string' },
    close: { type: 'boolean' },
    json: { type: 'boolean' },
    // tmux's -E (close when the command exits) is what a popup here always does.
    E: { type: 'boolean', short: 'E' },
  },
  run: async (ctx, { values, rest }) => {
    const pane = paneArg(ctx, values.pane) ?? ctx.env.CASTELLAN_PANE_ID;
    const client = values.client !== undefined ? String(values.client) : undefined;
    // Sizes are checked before connecting: a bad one is a usage error (2) whether or not a server runs.
    const width = size(values.width, '-w');
    const height = size(values.height, '-h');
    const api = await ctx.connect();
    try {
      if (values.close) {
        const r = await api.request<{ closed: boolean; popup_id?: string }>('popup.close', client ? { client_id: client } : {});
        ctx.out(values.json ? JSON.stringify(r) : r.closed ? `closed ${r.popup_id}` : 'no popup was open');
        return r.closed ? EXIT.ok : EXIT.error;
      }
      const r = await api.request<{ popup_id: string; client_id: string; cols: number; rows: number }>('popup.open', {
        ...(rest.length ? { command: rest } : {}),
        ...(values.cwd !== undefined ? { cwd: String(values.cwd) } : {}),
        ...(width !== undefined ? { width } : {}),
        ...(height !== undefined ? { height } : {}),
        ...(values.title !== undefined ? { title: String(values.title) } : {}),
        ...(client ? { client_id: client } : {}),
        ...(pane ? { pane_id: pane } : {}),
      }, { timeoutMs: 10_000 });
      ctx.out(values.json ? JSON.stringify(r) : `${r.popup_id} ${r.client_id} ${r.cols}x${r.rows}`);
      return EXIT.ok;
    } finally {
      api.close();
    }
  },
});
