// prefix D: opens `castellan review --pane ID` for the focused agent's worktree, in the one place that decides where it shows.
import type { AnyAction } from '../core/actions.js';
import type { State } from '../core/types.js';
import { cliArgv } from '../integrations/command-line.js';
import { WorktreeError } from './errors.js';
import type { Target } from './manager.js';
import type { WorktreeRecord } from './record.js';

/**
 * What the review needs of the session, declared here so the room does not reach into src/api: the API's
 * SessionApi satisfies it as it is.
 */
export interface ReviewSession {
  state(): State;
  readonly agents?: { readonly worktrees?: { find(t: Target): WorktreeRecord } };
  readonly popups?: { open(req: { client?: string; command?: string[]; cwd?: string; width?: number | string; height?: number | string; title?: string }): object };
  clientAction(clientId: string, action: AnyAction): { result?: Record<string, unknown> };
}

/** The pane the review is for (given, else the client's focused pane), checked to work in a castellan worktree. */
export function openReview(session: ReviewSession, clientId: string, pane?: string): Record<string, unknown> {
  const st = session.state();
  const c = st.clients[clientId];
  const target = pane ?? (c ? st.windows[c.window]?.active : undefined);
  if (!target || !st.panes[target]) throw new WorktreeError(`no pane ${target ?? ''}`.trim(), 'pane_not_found');
  const wt = session.agents?.worktrees;
  if (!wt) throw new WorktreeError('this server does not manage worktrees', 'internal_error');
  const rec = wt.find({ pane: target });
  return showReview(session, clientId, [...cliArgv(), 'review', '--pane', target, '--close'], { name: `review ${rec.branch}`, cwd: rec.path });
}

/** Popup refusals that mean "show it elsewhere", not "fail". */
const NO_POPUP = new Set(['not_allowed', 'no_space']);

/**
 * Where the review appears: a popup over the agent's pane (it closes when the review quits); where no popup can
 * show (this client already has one, the terminal is too small, a server without popups) a window of its own.
 */
export function showReview(session: ReviewSession, clientId: string, command: string[], o: { name: string; cwd: string }): Record<string, unknown> {
  if (session.popups) {
    try {
      return { ...session.popups.open({ client: clientId, command, cwd: o.cwd, width: '90%', height: '85%', title: o.name }) };
    } catch (e) {
      // The popup room's errors carry a code whatever their class: read the code, not the type.
      if (!NO_POPUP.has(String((e as { code?: unknown })?.code))) throw e;
    }
  }
  const r = session.clientAction(clientId, { type: 'window.new', command, name: o.name, cwd: o.cwd });
  return r.result ?? {};
}
