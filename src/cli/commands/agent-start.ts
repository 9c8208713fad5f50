// `castellan agent start NAME`: launch an agent definition in a new pane of the running server; prints its agent id and pane.
import { paneArg } from '../cli-util.js';
import { defineCommand, EXIT, UsageError } from '../define-command.js';
import { isPaneId } from '../../platform/pane-id.js';

const DIRS = ['right', 'down', 'left', 'up'];

export default defineCommand({
  name: 'agent start',
  usage: 'castellan agent start NAME [--pane new|ID | --parent PANE] [--prompt TEXT] [--direction right|down|left|up] [--worktree [BRANCH]] [--no-focus] [--json]',
  summary: 'Start an agent definition in a new pane; its hooks apply to that agent only, for its life.',
  details: [
    'The pane opens beside --pane ID (default, or "new": the pane this runs in, else the active pane). It runs the',
    'definition\'s command with CASTELLAN_AGENT_ID (a new id like my-agent-3f2a) and CASTELLAN_AGENT_TYPE. The definition\'s',
    'instructions and what its SubagentStart hooks print reach the agent as its first message (Claude: through its',
    'SessionStart hook; other agents: typed once the pane\'s badge is idle); --prompt TEXT follows them. A project definition',
    'must be trusted (`castellan trust`). Prints "AGENT_ID PANE_ID" (or JSON with --json).',
    '--parent PANE (`.` = this pane) starts it as a sub-harness pane of PANE, which must be in a recursive episode',
    '(castellan run --rlm): grouped with it, inheriting its goal, under [limits]; the SessionStart hooks run first.',
    '--worktree [BRANCH] starts it in a new git worktree on a new branch (default castellan/NAME-ID) from the HEAD of the',
    'repository it would start in; the border shows the branch and its changes; `castellan review --pane ID` (prefix D)',
    'reviews and merges them. The worktree outlives the pane until merged and pruned or discarded (castellan worktree list).',
  ].join('\n'),
  options: {
    pane: { type: 'string' },
    parent: { type: 'string' },
    prompt: { type: 'string' },
    direction: { type: 'string', short: 'd' },
    'no-focus': { type: 'boolean' },
    json: { type: 'boolean' },
    worktree: { type: 'boolean' },
  },
  positionals: true,
  run: async (ctx, { values, positionals }) => {
    // --worktree takes an optional branch: `agent start NAME --worktree [BRANCH]`.
    if (positionals.length !== 1 && !(values.worktree && positionals.length === 2)) throw new UsageError('give exactly one agent NAME (castellan agent list shows them), and at most one BRANCH after --worktree');
    const worktree = values.worktree ? (positionals[1] ?? true) : undefined;
    const direction = values.direction !== undefined ? String(values.direction) : undefined;
    if (direction !== undefined && !DIRS.includes(direction)) throw new UsageError(`--direction must be one of ${DIRS.join(', ')}`);
    const parent = values.parent !== undefined ? paneArg(ctx, values.parent, { flag: '--parent' }) : undefined;
    if (values.parent !== undefined && !parent) throw new UsageError('--parent needs a pane id (or "." inside a castellan pane)');
    if (parent && values.pane !== undefined) throw new UsageError('--parent and --pane exclude each other (a sub-harness pane opens beside its parent)');
    const pane = values.pane === undefined || values.pane === 'new' ? ctx.env.CASTELLAN_PANE_ID || undefined : paneArg(ctx, values.pane);
    const api = await ctx.connect();
    try {
      const r = await api.request<{ agent_id: string; pane_id: string; agent_type: string; kind: string; delivery: string; worktree?: { branch: string; path: string; note?: string } }>(
        'agent.start',
        {
          name: positionals[0],
          ...(parent ? { parent } : isPaneId(pane) ? { pane } : {}),
          ...(values.prompt !== undefined ? { prompt: String(values.prompt) } : {}),
          ...(direction ? { direction } : {}),
          cwd: ctx.cwd,
          ...(worktree !== undefined ? { worktree } : {}),
          ...(values['no-focus'] ? { focus: false } : parent ? {} : { focus: true }),
        },
        { timeoutMs: parent ? 120_000 : worktree ? 90_000 : 15_000 },
      );
      ctx.out(values.json ? JSON.stringify(r) : `${r.agent_id} ${r.pane_id}${r.worktree ? ` ${r.worktree.branch} ${r.worktree.path}` : ''}`);
      // Started, but the agent does not have the base's uncommitted edits: said where a person reads it.
      if (r.worktree?.note && !values.json) ctx.err(`castellan: note: ${r.worktree.note}`);
      return EXIT.ok;
    } finally {
      api.close();
    }
  },
});
