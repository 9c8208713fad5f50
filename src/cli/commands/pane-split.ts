// `castellan pane split`: open a pane next to another (default: the pane you run it in), print its id.
import { intArg, paneArg } from '../cli-util.js';
import { defineCommand, EXIT, UsageError } from '../define-command.js';

const DIRS = ['right', 'down', 'left', 'up'];

export default defineCommand({
  name: 'pane split',
  usage: 'castellan pane split [--pane ID] [--sub-harness] [--direction right|down|left|up] [--percent N] [--name NAME] [--cwd DIR] [--worktree [BRANCH]] [--no-focus] [--json] [-- COMMAND...]',
  summary: 'Split a pane; the new pane runs COMMAND (or your shell). Prints the new pane id.',
  details: [
    'COMMAND given as one quoted string with shell syntax runs through sh -c, as in tmux: -- \'make && make test\'.',
    '--sub-harness opens a sub-harness pane of --pane (default: this pane), which must be in a recursive episode',
    '(castellan run --rlm): placed beside it (first to the right, later ones below the last), grouped with it, inheriting',
    'its goal; refused past [limits] max_depth / max_children, or when a SessionStart hook fails. It does not take focus.',
    '--worktree [BRANCH] opens it in a new git worktree on a new branch from the HEAD of the repository at --cwd (see agent start).',
  ].join('\n'),
  options: {
    pane: { type: 'string' },
    'sub-harness': { type: 'boolean' },
    direction: { type: 'string', short: 'd' },
    percent: { type: 'string' },
    name: { type: 'string' },
    cwd: { type: 'string' },
    'no-focus': { type: 'boolean' },
    json: { type: 'boolean' },
    worktree: { type: 'boolean' },
  },
  positionals: true,
  run: async (ctx, { values, rest, positionals }) => {
    if (positionals.length > (values.worktree ? 1 : 0)) throw new UsageError(`unexpected ${positionals.join(' ')} (a command goes after --)`);
    const worktree = values.worktree ? (positionals[0] ?? true) : undefined;
    const direction = String(values.direction ?? 'right');
    if (!DIRS.includes(direction)) throw new UsageError(`--direction must be one of ${DIRS.join(', ')}`);
    // From inside a pane, the natural target is that pane.
    const target = paneArg(ctx, values.pane) ?? ctx.env.CASTELLAN_PANE_ID;
    const sub = !!values['sub-harness'];
    if (sub && !target) throw new UsageError('--sub-harness needs --pane PARENT outside a castellan pane');
    const api = await ctx.connect();
    try {
      const r = await api.request<{ pane_id: string; window_id: string; worktree?: { note?: string } }>('pane.split', {
        ...(target ? { pane_id: target } : {}),
        direction,
        ...(rest.length ? { command: rest } : {}),
        cwd: values.cwd !== undefined ? String(values.cwd) : ctx.cwd,
        ...(values.name !== undefined ? { name: String(values.name) } : {}),
        ...(values.percent !== undefined ? { percent: intArg(values.percent, 'percent', 1, 99) } : {}),
        // A sub-harness pane leaves focus with the delegating agent unless asked otherwise.
        ...(values['no-focus'] ? { focus: false } : sub ? {} : { focus: true }),
        ...(sub ? { sub_harness: true } : {}),
        ...(worktree !== undefined ? { worktree } : {}),
        // SessionStart hooks may run before a sub-harness pane opens (each has up to 30 s by default).
      }, { timeoutMs: sub ? 120_000 : worktree ? 90_000 : 10_000 });
      ctx.out(values.json ? JSON.stringify(r) : r.pane_id);
      if (r.worktree?.note && !values.json) ctx.err(`castellan: note: ${r.worktree.note}`);
      return EXIT.ok;
    } finally {
      api.close();
    }
  },
});
