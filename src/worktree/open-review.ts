// prefix D: opens `castellan review --pane ID` for the focused agent's worktree, in the one place that decides where it shows.
import type { SessionApi } from '../api/context.js';
import { ApiError } from '../api/errors.js';
import { cliArgv } from '../integrations/command-line.js';

/** The pane the review is for (given, else the client's focused pane), checked to work in a castellan worktree. */
export function openReview(session: SessionApi, clientId: string, pane?: string): Record<string, unknown> {
  const st = session.state();
  const c = st.clients[clientId];
  const target = pane ?? (c ? st.windows[c.window]?.active : undefined);
  if (!target || !st.panes[target]) throw new ApiError('pane_not_found', `no pane ${target ?? ''}`.trim());
  const wt = session.agents?.worktrees;
  if (!wt) throw new ApiError('internal_error', 'this server does not manage worktrees');
  const rec = wt.find({ pane: target });
  return showReview(session, clientId, [...cliArgv(), 'review', '--pane', target, '--close'], { name: `review ${rec.branch}`, cwd: rec.path });
}

/**
 * Where the review appears: a popup over the agent's pane (it closes when the review quits); where no popup can
 * show (this client already has one, the terminal is too small, a server without popups) a window of its own.
 */
export function showReview(session: SessionApi, clientId: string, command: string[], o: { name: string; cwd: string }): Record<string, unknown> {
  if (session.popups) {
    try {
      return { ...session.popups.open({ client: clientId, command, cwd: o.cwd, width: '90%', height: '85%', title: o.name }) };
    } catch (e) {
      if (!(e instanceof ApiError) || !['not_allowed', 'no_space'].includes(e.code)) throw e;
    }
  }
  const r = session.clientAction(clientId, { type: 'window.new', command, name: o.name, cwd: o.cwd });
  return r.result ?? {};
}
