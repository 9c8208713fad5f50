// Where a pane opened from a key, the prompt or the mouse starts: the focused program's directory, or the server's ([session] new_pane_cwd).
import type { AnyAction } from '../core/actions.js';

export type NewPaneCwd = 'pane' | 'server';

/**
 * Fills in `cwd` for a split or a new window that did not name one. "pane" (the default, what nearly every
 * tmux user configures with #{pane_current_path}) reads the focused pane's foreground process's directory;
 * "server" uses the directory the server started in (tmux's default).
 */
export function withNewPaneCwd(action: AnyAction, o: { mode: NewPaneCwd; serverCwd: string; focusedCwd(): string | undefined }): AnyAction {
  if (action.type !== 'pane.split' && action.type !== 'window.new') return action;
  if (action.cwd) return action;
  const cwd = o.mode === 'server' ? o.serverCwd : o.focusedCwd();
  return cwd ? { ...action, cwd } : action;
}
