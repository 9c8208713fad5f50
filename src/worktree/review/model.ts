// The review's text, as pure functions of what worktree.review returned (tested without a terminal).
export interface ReviewData {
  id: string;
  branch: string;
  base: string;
  path: string;
  pane_id: string | null;
  agent: string | null;
  files: Array<{ path: string; status: string; added: number; removed: number }>;
  ahead: number;
  uncommitted: number;
}

const clean = (s: string) => s.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');

export const KEYS = 'd diff · c commit · m merge into base · r rebase on base · x discard · g refresh · q quit';

/** The review screen: header, files with +/-, the keys, and the last action's outcome. */
export function reviewLines(d: ReviewData, o: { rows: number; cols: number; note?: string }): string[] {
  const cut = (s: string) => (s.length > o.cols ? `${s.slice(0, Math.max(0, o.cols - 1))}…` : s);
  const head = [
    `review ${clean(d.branch)} → ${d.base ? clean(d.base) : '(no base branch)'}${d.agent ? `   agent ${clean(d.agent)}` : ''}${d.pane_id ? `   pane ${d.pane_id}` : '   (pane closed)'}`,
    `${clean(d.path)}`,
    `${d.files.length} file${d.files.length === 1 ? '' : 's'} changed, +${d.files.reduce((n, f) => n + f.added, 0)} -${d.files.reduce((n, f) => n + f.removed, 0)}; ${d.ahead} commit${d.ahead === 1 ? '' : 's'} ahead; ${d.uncommitted} uncommitted`,
    '',
  ];
  const tail = ['', KEYS, ...(o.note ? [clean(o.note)] : [])];
  const room = Math.max(1, o.rows - head.length - tail.length);
  const files = d.files.length ? d.files.map((f) => `  ${f.status === '?' ? 'new' : f.status.padEnd(3)} ${`+${f.added}`.padStart(6)} ${`-${f.removed}`.padStart(6)}  ${clean(f.path)}`) : ['  (no changes against the base)'];
  const shown = files.length > room ? [...files.slice(0, room - 1), `  … and ${files.length - room + 1} more`] : files;
  return [...head, ...shown, ...tail].map(cut);
}

/** One line for an action's result (the API's answer or its error). */
export function outcome(action: string, r: unknown): string {
  const x = r as Record<string, unknown>;
  if (action === 'merge') return x.merged ? `merged (${String(x.mode)}) at ${String(x.commit).slice(0, 10)}` : `not merged: conflicts in ${(x.conflicts as string[]).join(', ')} — the base is unchanged; rebase or resolve in the worktree`;
  if (action === 'rebase') return x.rebased ? `rebased, now at ${String(x.commit).slice(0, 10)}` : `not rebased: conflicts in ${(x.conflicts as string[]).join(', ')} — the branch is unchanged`;
  if (action === 'commit') return `committed ${String(x.files)} file(s) as ${String(x.commit).slice(0, 10)}`;
  if (action === 'discard') return `discarded ${String(x.removed)}${x.branch_deleted ? ' and its branch' : ''}`;
  return JSON.stringify(r);
}

/** The program the diff goes to: castellan's own setting, else git's and the user's pager, else less. */
export function pagerCommand(env: NodeJS.ProcessEnv): string {
  return env.CASTELLAN_DIFF_PAGER || env.GIT_PAGER || env.PAGER || 'less -R';
}
