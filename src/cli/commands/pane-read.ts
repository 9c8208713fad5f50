// `castellan pane read`: print a pane's screen, or its scrollback (all of it, or the last N lines).
import { cleanRemoteAnsi, cleanRemoteLines, connectWhere, isRemote, terminalJson } from '../../machines/cli-door.js';
import { intArg, paneArg } from '../cli-util.js';
import { defineCommand, EXIT } from '../define-command.js';

export default defineCommand({
  name: 'pane read',
  usage: 'castellan pane read --pane ID [--machine NAME] [--lines N] [--scrollback] [--ansi] [--json]',
  summary: 'Print the visible screen of a pane (or, with --scrollback, history too); --lines keeps the last N; --ansi keeps colours.',
  options: { pane: { type: 'string' }, lines: { type: 'string', short: 'n' }, scrollback: { type: 'boolean' }, ansi: { type: 'boolean' }, json: { type: 'boolean' }, machine: { type: 'string' } },
  run: async (ctx, { values }) => {
    const pane = paneArg(ctx, values.pane, { required: true })!;
    const api = await connectWhere(ctx, values.machine);
    try {
      const r = await api.request<{ lines: string[]; text: string }>('pane.read', {
        pane_id: pane,
        source: values.scrollback ? 'scrollback' : 'screen',
        ansi: !!values.ansi,
        ...(values.lines !== undefined ? { lines: intArg(values.lines, 'lines', 1, 1_000_000) } : {}),
      }, { timeoutMs: 10_000 });
      // Another host's screen is data: only colours (with --ansi) survive, never its escape sequences.
      const text = !isRemote(values.machine) ? r.text : values.ansi ? cleanRemoteAnsi(String(r.text)) : cleanRemoteLines(String(r.text));
      ctx.out(values.json ? terminalJson(r) : text);
      return EXIT.ok;
    } finally {
      api.close();
    }
  },
});
