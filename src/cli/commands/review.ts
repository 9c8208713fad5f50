// `castellan review --pane ID`: review an agent's worktree (files, diff in your pager) and commit, merge, rebase or discard it.
import { paneArg } from '../cli-util.js';
import { confirmTyped } from '../confirm.js';
import { defineCommand, EXIT, UsageError } from '../define-command.js';
import { outcome, reviewLines, type ReviewData } from '../../worktree/review/model.js';

const ACTIONS = ['merge', 'rebase', 'discard'] as const;

export default defineCommand({
  name: 'review',
  usage: 'castellan review (--pane ID | --id ID|BRANCH) [--commit MESSAGE] [--merge | --rebase | --discard [--force]] [--diff] [--json]',
  summary: 'Review an agent worktree\'s changes against its base, then commit, merge, rebase or discard them.',
  details: [
    'In a terminal, with no action flag: an interactive review (prefix D opens it for the focused pane): the files changed',
    'with +/-, d shows the diff in your pager ($CASTELLAN_DIFF_PAGER, else $GIT_PAGER, $PAGER, less -R; e.g. delta),',
    'c commits everything on the branch, m merges into the base (fast-forward or a merge commit; a conflict is reported and',
    'the base left exactly as it was), r rebases on the base\'s new HEAD, x discards the worktree and its branch.',
    'With flags (or without a terminal) it does that and prints the outcome: --commit MSG first, then --merge/--rebase/--discard;',
    '--diff prints the diff. --id names a worktree whose pane is closed (castellan worktree list).',
    '--discard asks you to type yes on a terminal, as x does; with no terminal it needs --force.',
  ].join('\n'),
  options: {
    pane: { type: 'string' },
    id: { type: 'string' },
    commit: { type: 'string' },
    merge: { type: 'boolean' },
    rebase: { type: 'boolean' },
    discard: { type: 'boolean' },
    force: { type: 'boolean' },
    diff: { type: 'boolean' },
    json: { type: 'boolean' },
    // prefix D runs the review in a pane of its own: quitting closes that pane.
    close: { type: 'boolean' },
  },
  run: async (ctx, { values }) => {
    const pane = paneArg(ctx, values.pane);
    const id = values.id !== undefined ? String(values.id) : undefined;
    if (!pane === !id) throw new UsageError('give --pane ID or --id ID (castellan worktree list shows them)');
    const chosen = ACTIONS.filter((a) => values[a]);
    if (chosen.length > 1) throw new UsageError(`--${chosen.join(' and --')} exclude each other`);
    const target = pane ? { pane_id: pane } : { id };
    const api = await ctx.connect();
    const call = <T>(method: string, params: Record<string, unknown>) => api.request<T>(method, params, { timeoutMs: 120_000 });
    try {
      const scripted = values.commit !== undefined || chosen.length > 0 || values.diff || values.json || !process.stdin.isTTY || !process.stdout.isTTY;
      if (!scripted) {
        const { runReview } = await import('../../worktree/review/tui.js');
        const code = await runReview({ call, target, env: ctx.env, stdin: process.stdin, stdout: process.stdout });
        const own = ctx.env.CASTELLAN_PANE_ID;
        if (values.close && own) await call('pane.close', { pane_id: own }).catch(() => undefined);
        return code;
      }
      let code: number = EXIT.ok;
      const results: Record<string, unknown> = {};
      const step = async (name: string, method: string, params: Record<string, unknown> = {}) => {
        const r = await call<Record<string, unknown>>(method, { ...target, ...params });
        results[name] = r;
        if (r.merged === false || r.rebased === false) code = EXIT.error;
        if (!values.json) ctx.out(outcome(name, r));
      };
      if (values.commit !== undefined) await step('commit', 'worktree.commit', { message: String(values.commit) });
      if (values.merge) await step('merge', 'worktree.merge');
      if (values.rebase) await step('rebase', 'worktree.rebase');
      if (values.discard && !values.force) {
        // As the interactive x and `worktree discard`: a discard is typed out, or --force where nobody can be asked.
        const yes = await confirmTyped({ stdin: process.stdin, stdout: process.stdout }, `discard ${pane ?? id} and every change in it? type yes: `);
        if (!yes) {
          ctx.err(yes === undefined ? 'castellan review: not discarded: with no terminal to ask on, --force says you mean it' : 'not discarded');
          return yes === undefined ? EXIT.usage : EXIT.error;
        }
      }
      if (values.discard) await step('discard', 'worktree.discard');
      if (!values.discard) {
        const d = await call<ReviewData & { diff?: string }>('worktree.review', { ...target, diff: !!values.diff });
        if (values.json) ctx.out(JSON.stringify({ ...results, review: d }));
        else if (!chosen.length && values.commit === undefined) ctx.out(values.diff ? (d.diff ?? '') : reviewLines(d, { rows: 1000, cols: 200 }).slice(0, -1).join('\n'));
      } else if (values.json) ctx.out(JSON.stringify(results));
      return code;
    } finally {
      api.close();
    }
  },
});
