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
 * Where the review appears. For now a new window running the review program (it closes its pane when you quit);
 * once display-popup lands, this is the one function to switch to a popup over the agent's pane.
 */
export function showReview(session: SessionApi, clientId: string, command: string[], o: { name: string; cwd: string }): Record<string, unknown> {
  const r = session.clientAction(clientId, { type: 'window.new', command, name: o.name, cwd: o.cwd });
  return r.result ?? {};
}
