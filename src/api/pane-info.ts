// The public shape of a pane and a window as the API reports them (snake_case, stable).
import { z } from 'zod';
import { focusedPanes, paneTitle, windowName, windowsInOrder } from '../core/select.js';
import type { PaneState, State } from '../core/types.js';
import { AGENT_STATES } from '../core/types.js';
import { agentWorktreeAt } from '../worktree/where.js';
import type { SessionApi } from './context.js';

export const paneInfoSchema = z.object({
  pane_id: z.string(),
  window_id: z.string(),
  title: z.string(),
  name: z.string().optional(),
  command: z.array(z.string()),
  cwd: z.string(),
  cols: z.number(),
  rows: z.number(),
  pid: z.number().optional(),
  foreground: z.string().optional(),
  focused: z.boolean(),
  active: z.boolean(),
  exited: z.object({ code: z.number().nullable(), signal: z.number().nullable().optional() }).optional(),
  agent: z.object({
    name: z.string().optional(),
    state: z.enum(AGENT_STATES),
    source: z.string().optional(),
    message: z.string().optional(),
    since: z.number(),
    hook_locked: z.boolean(),
    waiting: z.boolean(),
  }),
  parent: z.string().optional(),
  /** The agent git worktree the pane works in and its branch (null outside one), as hook payloads carry them. */
  worktree: z.string().nullable(),
  branch: z.string().nullable(),
  /** Restored elsewhere because this directory, where it ran before, was gone (issue 30 item 16). */
  cwd_gone: z.string().optional(),
});
export type PaneInfo = z.infer<typeof paneInfoSchema>;

export const windowInfoSchema = z.object({
  window_id: z.string(),
  index: z.number(),
  name: z.string(),
  active_pane: z.string(),
  panes: z.array(z.string()),
  zoomed: z.boolean(),
  cols: z.number(),
  rows: z.number(),
});

export function paneInfo(session: SessionApi, state: State, p: PaneState, focused = focusedPanes(state)): PaneInfo {
  const rt = session.paneInfo(p.id);
  const w = state.windows[p.window];
  return {
    pane_id: p.id,
    window_id: p.window,
    title: paneTitle(p),
    ...(p.name ? { name: p.name } : {}),
    command: p.command,
    cwd: rt?.cwdSoon ?? p.cwd,
    cols: rt?.cols ?? 0,
    rows: rt?.rows ?? 0,
    ...(rt?.pid ? { pid: rt.pid } : {}),
    ...(rt?.foreground ? { foreground: rt.foreground } : {}),
    focused: focused.has(p.id),
    active: w?.active === p.id,
    ...(p.exited ? { exited: { code: p.exited.code, signal: p.exited.signal ?? null } } : {}),
    agent: {
      ...(p.agent.agent ? { name: p.agent.agent } : {}),
      state: p.agent.state,
      ...(p.agent.source ? { source: p.agent.source } : {}),
      ...(p.agent.message ? { message: p.agent.message } : {}),
      since: p.agent.since,
      hook_locked: !!p.agent.hook,
      waiting: !!p.agent.waitMark,
    },
    ...(p.parent ? { parent: p.parent } : {}),
    ...(p.cwdGone ? { cwd_gone: p.cwdGone } : {}),
    ...worktreeOf(session, p.id, rt?.cwdSoon ?? p.cwd),
  };
}

/**
 * The pane's worktree: the one castellan paired it with, else the one its directory is in (read from the marker
 * in git's admin dir, as for hook payloads: a shell that cd'd into an agent's worktree is in it too).
 */
function worktreeOf(session: SessionApi, pane: string, cwd: string): { worktree: string | null; branch: string | null } {
  const w = session.agents?.worktrees?.ofPane(pane) ?? (cwd ? agentWorktreeAt(cwd) : undefined);
  return { worktree: w?.worktree ?? null, branch: w?.branch ?? null };
}

export function windowInfos(state: State) {
  return windowsInOrder(state).map((w) => ({
    window_id: w.id,
    index: w.index,
    name: windowName(state, w),
    active_pane: w.active,
    panes: Object.values(state.panes).filter((p) => p.window === w.id).map((p) => p.id),
    zoomed: !!w.zoomed,
    cols: w.size.cols,
    rows: w.size.rows,
  }));
}
