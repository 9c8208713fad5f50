// `castellan pane send`: type text (or press named keys) in a pane.
import { connectWhere } from '../../machines/cli-door.js';
import { paneArg } from '../cli-util.js';
import { defineCommand, EXIT, UsageError } from '../define-command.js';

export default defineCommand({
  name: 'pane send',
  usage: 'castellan pane send --pane ID [--machine NAME] [--enter] [--paste] TEXT...   |   castellan pane send --pane ID [--machine NAME] --keys KEY...',
  summary: 'Type TEXT into a pane (words joined by spaces; --enter presses Enter after; --paste sends it as a bracketed paste), or press named keys (--keys Enter C-c Up).',
  positionals: true,
  options: { pane: { type: 'string' }, enter: { type: 'boolean' }, paste: { type: 'boolean' }, keys: { type: 'boolean' }, stdin: { type: 'boolean' }, machine: { type: 'string' } },
  run: async (ctx, { values, positionals, rest }) => {
    const pane = paneArg(ctx, values.pane, { required: true })!;
    const words = [...positionals, ...rest];
    const api = await connectWhere(ctx, values.machine);
    try {
      if (values.keys) {
        if (!words.length) throw new UsageError('--keys needs key names, e.g. Enter C-c Up');
        await api.request('pane.send_keys', { pane_id: pane, keys: words }, { timeoutMs: 5000 });
      } else {
        let text = words.join(' ');
        if (values.stdin) {
          const chunks: Buffer[] = [];
          for await (const c of process.stdin) chunks.push(c as Buffer);
          text = Buffer.concat(chunks).toString('utf8');
        }
        if (!text && !values.enter) throw new UsageError('nothing to send (give TEXT, --stdin or --enter)');
        await api.request('pane.send_text', { pane_id: pane, text, paste: !!values.paste, enter: !!values.enter }, { timeoutMs: 5000 });
      }
      return EXIT.ok;
    } finally {
      api.close();
    }
  },
});
