// remain_on_exit: whether a pane goes when its program exits. tmux closes every pane (remain-on-exit off); castellan's
// default closes a pane whose program ended well (a shell's `exit`, a finished command) and keeps one that failed or
// was killed, showing how it ended, so a failure is never wiped off the screen before anyone read it.

export type RemainOnExit = 'failed' | 'on' | 'off';

export function closesOnExit(mode: RemainOnExit, how: { code: number | null; signal?: number | null }): boolean {
  if (mode === 'on') return false;
  if (mode === 'off') return true;
  return how.code === 0 && !how.signal;
}
