// `castellan run -- CMD...`: launch an agent as a governed episode: SessionStart hooks, the agent (here or in a new pane), SessionEnd hooks.
import { randomBytes } from 'node:crypto';
import { basename } from 'node:path';
import type { ApiClient } from '../../api/client.js';
import { ServerLink } from '../../hooks/emit.js';
import { exitStatus, runForeground, sessionStatus } from '../../hooks/foreground.js';
import { governSessionEnd, governSessionStart, type GovEvent } from '../../hooks/pipeline.js';
import { defineCommand, EXIT, UsageError, type CliContext } from '../define-command.js';
import { isPaneId } from '../../platform/pane-id.js';

export const newGoalId = (): string => `g-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  status: string;
  paneId?: string;
  exit: number;
}

/** Opens a pane running the agent and waits for its program to exit (or the pane to close). */
async function runInNewPane(ctx: CliContext, argv: string[], env: Record<string, string>): Promise<Ended> {
  const api: ApiClient = await ctx.connect();
  try {
    const seen: Array<Record<string, unknown>> = [];
    let wake: (() => void) | undefined;
    const subId = api.nextId();
    api.onMessage((m) => {
      if (m.id === subId && m.event && typeof m.event === 'object') {
        seen.push(m.event as Record<string, unknown>);
        wake?.();
      }
    });
    const closed = new Promise<void>((r) => api.onClosed(r));
    // Subscribe before splitting, so a program that exits at once is not missed.
    await api.request('events.subscribe', { types: ['pane_exited', 'pane_closed'] }, { id: subId, timeoutMs: 5000 });
    const target = ctx.env.CASTELLAN_PANE_ID;
    const split = await api.request<{ pane_id: string }>(
      'pane.split',
      { ...(isPaneId(target) ? { pane_id: target } : {}), command: argv, cwd: ctx.cwd, env, name: basename(argv[0]).slice(0, 60) },
      { timeoutMs: 10_000 },
    );
    const pane = split.pane_id;
    for (;;) {
      const e = seen.find((x) => x.pane === pane);
      if (e) {
        if (e.type === 'pane_closed') return { code: null, signal: null, status: 'closed', paneId: pane, exit: 1 };
        const code = typeof e.code === 'number' ? e.code : null;
        const signal = typeof e.signal === 'number' && e.signal > 0 ? e.signal : null;
        const exit = code ?? (signal ? 128 + signal : 1);
        return { code, signal: null, status: code === 0 ? 'ok' : signal ? 'killed' : 'failed', paneId: pane, exit };
      }
      if (api.closed) return { code: null, signal: null, status: 'error', paneId: pane, exit: EXIT.notRunning };
      await Promise.race([new Promise<void>((r) => (wake = r)), closed]);
    }
  } finally {
    api.close();
  }
}

interface Episode {
  pane_id: string;
  goal_id: string;
  depth: number;
  sub_harness: boolean;
  parent?: string;
}

/** --rlm: this pane becomes an episode root (or, in a sub-harness pane, keeps its place in its tree). */
async function startEpisode(ctx: CliContext, here: string | undefined, goalId: string): Promise<Episode | undefined> {
  if (!isPaneId(here)) {
    ctx.err('castellan run: --rlm needs a castellan pane (CASTELLAN_PANE_ID is not set): run it inside castellan');
    return undefined;
  }
  const api = await ctx.connect();
  try {
    return await api.request<Episode>('episode.start', { pane_id: here, goal_id: goalId }, { timeoutMs: 10_000 });
  } finally {
    api.close();
  }
}

/** The agent is gone: so is its tree (the server closes the sub-harness panes unless [limits] keep_children). */
async function endEpisode(ctx: CliContext, pane: string): Promise<void> {
  try {
    const api = await ctx.connect();
    try {
      // The server answers once the children's SessionEnd hooks have run (at most 60 s).
      await api.request('episode.end', { pane_id: pane }, { timeoutMs: 70_000 });
    } finally {
      api.close();
    }
  } catch (e) {
    ctx.err(`castellan run: could not end the episode in ${pane}: ${(e as Error).message}`);
  }
}

export default defineCommand({
  name: 'run',
  usage: 'castellan run [--rlm] [--goal ID] [--plugin NAME] [--pane new] [--json] -- COMMAND [ARG...]',
  summary: 'Run an agent as a governed episode: SessionStart hooks first (a failure stops it), SessionEnd hooks after it exits.',
  details: [
    'The agent runs in this terminal (stdio inherited; castellan exits with its code), or with --pane new in a new pane',
    'of the running server (castellan waits for it to exit). goal_id is --goal or a generated id; plugin is --plugin or',
    'the basename of COMMAND. The agent gets CASTELLAN_GOAL_ID and CASTELLAN_PLUGIN in its environment.',
    'Exit codes: the agent\'s; 1 if a SessionStart hook failed (the agent did not start; the hook\'s stderr is the reason)',
    'or a SessionEnd hook failed after the agent exited 0. --json prints the governance events as JSON lines.',
    '--rlm starts a recursive episode in this castellan pane (CASTELLAN_PANE_ID): the agent may delegate, opening',
    'sub-harness panes beside it (castellan pane split --sub-harness -- CMD, castellan agent start NAME --parent .) that',
    'inherit the goal, fire the same SessionStart/SessionEnd hooks (with parent_pane and depth) and are closed when the',
    'agent exits (unless [limits] keep_children = true). Inside a sub-harness pane, --rlm keeps that pane\'s goal and depth.',
  ].join('\n'),
  options: { goal: { type: 'string' }, plugin: { type: 'string' }, pane: { type: 'string' }, json: { type: 'boolean' }, rlm: { type: 'boolean' } },
  run: async (ctx, { values, rest }) => {
    if (!rest.length) throw new UsageError('give the agent command after --, e.g. castellan run -- claude');
    if (values.pane !== undefined && values.pane !== 'new') throw new UsageError('--pane takes only "new" (default: this terminal)');
    let goalId = values.goal !== undefined ? String(values.goal) : newGoalId();
    if (!/^[A-Za-z0-9_.:-]{1,128}$/.test(goalId)) throw new UsageError('--goal must be 1-128 letters, digits, "_", ".", ":" or "-"');
    const plugin = values.plugin !== undefined ? String(values.plugin) : basename(rest[0]);
    const here = ctx.env.CASTELLAN_PANE_ID || undefined;
    if (values.rlm && values.pane === 'new') throw new UsageError('--rlm runs the agent in this pane, which becomes the episode\'s root: drop --pane new');
    let episode: Episode | undefined;
    if (values.rlm) {
      episode = await startEpisode(ctx, here, goalId);
      if (!episode) return EXIT.error;
      goalId = episode.goal_id;
    }
    const onEvent = values.json ? (e: GovEvent) => ctx.out(JSON.stringify(e)) : undefined;
    const link = new ServerLink(ctx.paths.socket);
    const opts = { env: ctx.env, paths: ctx.paths, link, onEvent };
    // In a sub-harness pane the server already ran SessionStart for the pane (and runs SessionEnd when it ends).
    const ownHooks = !episode?.sub_harness;
    const tree = episode ? { depth: episode.depth, ...(episode.parent ? { parentPane: episode.parent } : {}) } : {};
    try {
      const start = ownHooks ? await governSessionStart({ goalId, plugin, paneId: here, cwd: ctx.cwd, command: rest, ...tree }, opts) : { ok: true, reason: undefined };
      if (!start.ok) {
        ctx.err(`castellan run: SessionStart hook failed, ${plugin} not started: ${start.reason}`);
        return EXIT.error;
      }
      const agentEnv = { CASTELLAN_GOAL_ID: goalId, CASTELLAN_PLUGIN: plugin };
      let ended: Ended;
      if (values.pane === 'new') {
        ended = await runInNewPane(ctx, rest, agentEnv);
      } else {
        const r = await runForeground(rest, { cwd: ctx.cwd, env: { ...ctx.env, ...agentEnv } });
        if (r.error) ctx.err(`castellan run: ${rest[0]}: ${r.error.code === 'ENOENT' ? 'command not found' : r.error.message}`);
        ended = { code: r.code, signal: r.signal, status: sessionStatus(r), paneId: here, exit: exitStatus(r) };
      }
      // The tree ends before the root's session does (its SessionEnd hooks run first).
      if (episode) {
        await endEpisode(ctx, episode.pane_id);
        episode = undefined;
      }
      const end = ownHooks
        ? await governSessionEnd({ goalId, plugin, status: ended.status, exitCode: ended.code, signal: ended.signal, paneId: ended.paneId, cwd: ctx.cwd, ...tree }, opts)
        : { ok: true, reason: undefined };
      if (!end.ok) {
        ctx.err(`castellan run: SessionEnd hook failed: ${end.reason}`);
        return ended.exit === 0 ? EXIT.error : ended.exit;
      }
      return ended.exit;
    } finally {
      link.close();
      if (episode) await endEpisode(ctx, episode.pane_id);
    }
  },
});
