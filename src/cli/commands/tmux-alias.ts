// A tmux command name on the CLI: tmux's flags parsed by the shared table (core/tmux-commands.ts), then the castellan command it means.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { clip, tmuxCommand, type TmuxArgs } from '../../core/tmux-commands.js';
import { type CliContext, type CommandDef, defineCommand, EXIT, UsageError } from '../define-command.js';
import { findRow } from '../table.js';

export function tmuxAlias(name: string): CommandDef {
  const cmd = tmuxCommand(name);
  if (!cmd?.cli) throw new Error(`no tmux command ${name} on the CLI`);
  const cli = cmd.cli;
  // Each getopt letter is an option of its own: parseArgs then takes -dh, -cDIR and -c DIR as tmux does.
  const options: NonNullable<ParseArgsConfig['options']> = {};
  for (let i = 0; i < cmd.getopt.length; i++) {
    const letter = cmd.getopt[i];
    if (letter === ':') continue;
    options[letter] = { type: cmd.getopt[i + 1] === ':' ? 'string' : 'boolean', short: letter };
  }
  return defineCommand({
    name: cmd.name,
    usage: `castellan ${cmd.usage}`,
    summary: `tmux's ${cmd.name}: ${cmd.means}.`,
    details: 'Panes are named w1:p2 (the border shows it); windows by their number in the bar or their id (w2).',
    options,
    positionals: cmd.maxArgs > 0,
    run: async (ctx, { values, positionals, rest }) => {
      const flags: TmuxArgs['flags'] = {};
      for (const [k, v] of Object.entries(values)) if (typeof v === 'string' || v === true) flags[k] = v;
      const args = [...positionals, ...rest];
      if (args.length > cmd.maxArgs) throw new UsageError(`too many arguments: ${clip(args.join(' '))}`);
      const m = cli({ flags, args });
      if (!m.ok) throw new UsageError(m.error);
      if ('argv' in m.value) return delegate(ctx, m.value.argv);
      const api = await ctx.connect();
      try {
        const params = { ...m.value.params };
        if (m.value.pane === 'implied' && params.pane_id === undefined) params.pane_id = ctx.env.CASTELLAN_PANE_ID ?? (await focusedPane(api));
        await api.request(m.value.method, params, { timeoutMs: 5000 });
        return EXIT.ok;
      } finally {
        api.close();
      }
    },
  });
}

/** Runs the castellan command a tmux line means, with that command's own option checks. */
async function delegate(ctx: CliContext, argv: string[]): Promise<number> {
  const two = argv.slice(0, 2).join(' ');
  const row = findRow(two);
  if (!row) throw new Error(`no castellan command ${two}`);
  const def = (await row.load()).default;
  const dash = argv.indexOf('--');
  const own = dash === -1 ? argv.slice(2) : argv.slice(2, dash);
  const rest = dash === -1 ? [] : argv.slice(dash + 1);
  const parsed = parseArgs({ args: own, options: def.options ?? {}, allowPositionals: !!def.positionals, strict: true });
  return def.run(ctx, { values: parsed.values as never, positionals: parsed.positionals, rest });
}

/** tmux's default target outside a pane: the pane attached clients see. */
async function focusedPane(api: Awaited<ReturnType<CliContext['connect']>>): Promise<string> {
  const { panes } = await api.request<{ panes: Array<{ pane_id: string; focused: boolean }> }>('pane.list', {}, { timeoutMs: 5000 });
  const p = panes.find((x) => x.focused) ?? panes[0];
  if (!p) throw new UsageError('no pane');
  return p.pane_id;
}
