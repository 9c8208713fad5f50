// `castellan worktree discard`: throw away an agent's worktree and its branch, whatever they hold, once you said so.
import { paneArg } from '../cli-util.js';
import { confirmTyped, type ConfirmIo } from '../confirm.js';
import { type CliContext, defineCommand, EXIT, type ParsedArgs, UsageError } from '../define-command.js';

interface Row { branch: string; path: string; work: string[] | null }

/** The command with its terminal passed in (tests hand it a pretend one). */
export async function runDiscard(ctx: CliContext, { values }: ParsedArgs, io: ConfirmIo): Promise<number> {
  const pane = paneArg(ctx, values.pane);
  const id = values.id !== undefined ? String(values.id) : undefined;
  if (!pane === !id) throw new UsageError('give --pane ID or --id ID (castellan worktree list shows them)');
  const api = await ctx.connect();
  try {
    if (!values.force) {
      // What would be lost, in the words prune uses: the question names it, so "yes" is an informed answer.
      const { worktrees } = await api.request<{ worktrees: Row[] }>('worktree.list', pane ? { pane_id: pane } : { id }, { timeoutMs: 60_000 });
      const w = worktrees[0];
      const what = !w ? `the worktree ${pane ?? id}` : `${w.branch} (${w.path})`;
      const held = !w || w.work === null ? 'whatever it holds (git could not read it)' : w.work.length ? w.work.join('; ') : 'nothing castellan can see beyond its branch';
      const yes = await confirmTyped(io, `discard ${what} and delete its branch${values['keep-branch'] ? ' (kept: --keep-branch)' : ''}? It holds: ${held}.\nType yes to discard: `);
      if (yes === undefined) {
        ctx.err(`castellan worktree discard: not discarded: ${what} holds ${held}; with no terminal to ask on, --force says you mean it`);
        return EXIT.usage;
      }
      if (!yes) {
        ctx.err('not discarded');
        return EXIT.error;
      }
    }
    const r = await api.request<{ removed: string; branch_deleted: boolean }>('worktree.discard', { ...(pane ? { pane_id: pane } : { id }), keep_branch: !!values['keep-branch'] }, { timeoutMs: 60_000 });
    ctx.out(values.json ? JSON.stringify(r) : `removed ${r.removed}${r.branch_deleted ? ' and its branch' : ''}`);
    return EXIT.ok;
  } finally {
    api.close();
  }
}

export default defineCommand({
  name: 'worktree discard',
  usage: 'castellan worktree discard (--pane ID | --id ID|BRANCH) [--force] [--keep-branch] [--json]',
  summary: 'Remove an agent worktree and delete its branch, uncommitted and unmerged work included (asks first).',
  details: [
    'On a terminal it says what the worktree holds (as `worktree list` does) and discards only when you type yes.',
    'With no terminal (a script, a pipe) it discards nothing unless --force is given.',
  ].join('\n'),
  options: { pane: { type: 'string' }, id: { type: 'string' }, force: { type: 'boolean' }, 'keep-branch': { type: 'boolean' }, json: { type: 'boolean' } },
  run: (ctx, args) => runDiscard(ctx, args, { stdin: process.stdin, stdout: process.stdout }),
});
