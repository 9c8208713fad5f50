// The review's actions on an agent's worktree: commit, merge into base, rebase on base, discard. Refused whole or done whole.
import { existsSync, rmSync } from 'node:fs';
import { WorktreeError } from './errors.js';
import { firstLines, git, gitOk, printable } from './git.js';
import type { WorktreeRecord } from './record.js';

/** One git-changing operation per repository at a time: a second merge is told so, not interleaved. */
const busy = new Map<string, string>();

export async function exclusive<T>(r: WorktreeRecord, what: string, fn: () => Promise<T>): Promise<T> {
  const running = busy.get(r.commonDir);
  if (running) throw new WorktreeError(`another operation (${running}) is running on this repository; try again when it is done`, 'busy');
  busy.set(r.commonDir, what);
  try {
    return await fn();
  } finally {
    busy.delete(r.commonDir);
  }
}

function present(r: WorktreeRecord): void {
  if (!existsSync(r.path)) throw new WorktreeError(`the worktree ${r.path} is gone (deleted by hand?): \`castellan worktree discard\` forgets it (its branch ${r.branch} is kept if it has unmerged commits)`, 'worktree_missing');
}

async function dirty(cwd: string): Promise<string[]> {
  const s = await gitOk(['status', '--porcelain', '--untracked-files=all'], { cwd, what: 'git status' });
  return s.split('\n').filter(Boolean);
}

export async function commit(r: WorktreeRecord, message: string): Promise<{ commit: string; files: number }> {
  present(r);
  return exclusive(r, 'commit', async () => {
    const changed = await dirty(r.path);
    if (!changed.length) throw new WorktreeError('nothing to commit: the worktree has no changes', 'nothing_to_do');
    await gitOk(['add', '-A'], { cwd: r.path, what: 'git add' });
    await gitOk(['commit', '--no-verify', '-q', '-m', message], { cwd: r.path, what: 'git commit' });
    return { commit: (await gitOk(['rev-parse', 'HEAD'], { cwd: r.path })).trim(), files: changed.length };
  });
}

/** Conflicting files if merging `theirs` into `ours` would conflict, computed without touching any working tree or index. */
async function conflicts(repo: string, ours: string, theirs: string): Promise<{ tree?: string; files: string[] }> {
  const m = await git(['merge-tree', '--write-tree', '--name-only', '--no-messages', ours, theirs], { cwd: repo, timeoutMs: 30_000 });
  if (m.exitCode === 0) return { tree: m.stdout.split('\n')[0].trim(), files: [] };
  if (m.exitCode === 1) return { files: m.stdout.split('\n').slice(1).filter(Boolean) };
  throw new WorktreeError(`git merge-tree failed: ${firstLines(m.stderr)}`);
}

/** Where the base branch is checked out, if anywhere. */
async function checkedOutAt(r: WorktreeRecord): Promise<string | undefined> {
  const l = await gitOk(['worktree', 'list', '--porcelain', '-z'], { cwd: r.repo, what: 'git worktree list' });
  let path: string | undefined;
  for (const line of l.split('\0')) {
    if (line.startsWith('worktree ')) path = line.slice(9);
    else if (line === `branch refs/heads/${r.base}`) return path;
  }
  return undefined;
}

/** `git status` of a checkout: changed tracked files (and which are staged) and untracked ones. */
async function statusOf(cwd: string): Promise<{ changed: string[]; staged: string[]; untracked: string[] }> {
  const e = (await gitOk(['status', '--porcelain', '-z', '--untracked-files=all'], { cwd, what: 'git status' })).split('\0');
  const out = { changed: [] as string[], staged: [] as string[], untracked: [] as string[] };
  for (let i = 0; i < e.length; i++) {
    if (e[i].length < 4) continue;
    const [x, name] = [e[i][0], e[i].slice(3)];
    if (e[i].startsWith('??')) out.untracked.push(name);
    else {
      out.changed.push(name);
      if (x !== ' ') out.staged.push(name);
      // A rename's source path follows as an entry of its own: it is changed too.
      if (x === 'R' || x === 'C') out.changed.push(e[++i]);
    }
  }
  return out;
}

/**
 * Refuses a merge into a checkout with uncommitted work only when the merge would touch it: a changed or untracked
 * file the merge changes or creates, or (for a merge commit, which git makes from the index) anything staged.
 * Changes to other files stay as they are, uncommitted, after the merge.
 */
async function inTheWay(r: WorktreeRecord, at: string, from: string, to: string, ff: boolean): Promise<void> {
  const [st, diff] = await Promise.all([statusOf(at), gitOk(['diff', '--no-ext-diff', '--no-textconv', '--name-only', '--no-renames', '-z', from, to], { cwd: r.repo, what: 'git diff --name-only' })]);
  const touched = new Set(diff.split('\0').filter(Boolean));
  const hit = [...new Set([...st.changed, ...st.untracked])].filter((f) => touched.has(f));
  const show = (xs: string[]) => `${xs.slice(0, 10).map(printable).join(', ')}${xs.length > 10 ? ` and ${xs.length - 10} more` : ''}`;
  if (hit.length) throw new WorktreeError(`${r.base} is checked out in ${at} with uncommitted changes to files this merge changes: ${show(hit)}. Commit or stash them, then merge`, 'dirty_base');
  if (!ff && st.staged.length) throw new WorktreeError(`${r.base} is checked out in ${at} with staged changes (${show(st.staged)}): a merge commit would take them in. Commit or unstage them, then merge`, 'dirty_base');
}

export type MergeResult = { merged: true; mode: 'fast-forward' | 'merge'; commit: string } | { merged: false; conflicts: string[] };

/**
 * Merges the branch into its base. Conflicts are found first in git's merge-tree (no working tree, no index),
 * so a conflict is reported with the base exactly as it was: no MERGE_HEAD, nothing staged.
 */
export async function merge(r: WorktreeRecord): Promise<MergeResult> {
  present(r);
  if (!r.base) throw new WorktreeError('the worktree was made from a detached HEAD: there is no base branch to merge into', 'no_base');
  return exclusive(r, 'merge', async () => {
    if ((await dirty(r.path)).length) throw new WorktreeError('the worktree has uncommitted changes: commit them first (review: c)', 'uncommitted');
    const baseRef = `refs/heads/${r.base}`;
    const [baseSha, tip] = (await Promise.all([gitOk(['rev-parse', baseRef], { cwd: r.repo }), gitOk(['rev-parse', `refs/heads/${r.branch}`], { cwd: r.repo })])).map((s) => s.trim());
    if ((await git(['merge-base', '--is-ancestor', tip, baseSha], { cwd: r.repo, timeoutMs: 5000 })).exitCode === 0) throw new WorktreeError(`nothing to merge: ${r.base} already has every commit of ${r.branch}`, 'nothing_to_do');
    const ff = (await git(['merge-base', '--is-ancestor', baseSha, tip], { cwd: r.repo, timeoutMs: 5000 })).exitCode === 0;
    const c = ff ? { files: [] as string[], tree: undefined } : await conflicts(r.repo, baseSha, tip);
    if (c.files.length) return { merged: false, conflicts: c.files };
    const msg = `Merge branch '${r.branch}' (castellan review)`;
    const at = await checkedOutAt(r);
    if (at) {
      await inTheWay(r, at, baseSha, ff ? tip : c.tree!, ff);
      const m = await git(ff ? ['merge', '--ff-only', '-q', tip] : ['merge', '--no-ff', '--no-edit', '-q', '-m', msg, tip], { cwd: at, timeoutMs: 60_000 });
      if (m.exitCode !== 0) {
        // merge-tree said clean, so this is something else (an untracked file in the way): put the base back as it was.
        if ((await git(['rev-parse', '-q', '--verify', 'MERGE_HEAD'], { cwd: at, timeoutMs: 5000 })).exitCode === 0) await git(['merge', '--abort'], { cwd: at, timeoutMs: 30_000 });
        throw new WorktreeError(`git merge in ${at} failed, nothing was changed: ${firstLines(m.stderr || m.stdout)}`, 'merge_failed');
      }
    } else {
      // The base is not checked out anywhere: move its ref (compare-and-swap on the sha we checked).
      const next = ff ? tip : (await gitOk(['commit-tree', c.tree!, '-p', baseSha, '-p', tip, '-m', msg], { cwd: r.repo, what: 'git commit-tree' })).trim();
      await gitOk(['update-ref', '-m', 'castellan review: merge', baseRef, next, baseSha], { cwd: r.repo, what: 'git update-ref' });
    }
    return { merged: true, mode: ff ? 'fast-forward' : 'merge', commit: (await gitOk(['rev-parse', baseRef], { cwd: r.repo })).trim() };
  });
}

export type RebaseResult = { rebased: true; commit: string } | { rebased: false; conflicts: string[] };

/** Rebases the branch onto its base's current HEAD; checked for conflicts first, aborted whole if git still stops. */
export async function rebase(r: WorktreeRecord): Promise<RebaseResult> {
  present(r);
  if (!r.base) throw new WorktreeError('the worktree was made from a detached HEAD: there is no base branch to rebase on', 'no_base');
  return exclusive(r, 'rebase', async () => {
    if ((await dirty(r.path)).length) throw new WorktreeError('the worktree has uncommitted changes: commit them first (review: c)', 'uncommitted');
    const c = await conflicts(r.repo, `refs/heads/${r.base}`, `refs/heads/${r.branch}`);
    if (c.files.length) return { rebased: false, conflicts: c.files };
    const m = await git(['rebase', '-q', `refs/heads/${r.base}`], { cwd: r.path, timeoutMs: 60_000 });
    if (m.exitCode !== 0) {
      await git(['rebase', '--abort'], { cwd: r.path, timeoutMs: 30_000 });
      throw new WorktreeError(`git rebase failed and was aborted, the branch is as it was: ${firstLines(m.stderr || m.stdout)}`, 'rebase_failed');
    }
    return { rebased: true, commit: (await gitOk(['rev-parse', 'HEAD'], { cwd: r.path })).trim() };
  });
}

/** Removes the worktree and deletes its branch: the user asked for it (and confirmed), so uncommitted and unmerged work goes too. */
export async function discard(r: WorktreeRecord, o: { keepBranch?: boolean } = {}): Promise<{ removed: string; branch_deleted: boolean }> {
  return exclusive(r, 'discard', async () => {
    const rm = await git(['worktree', 'remove', '--force', '--force', r.path], { cwd: r.repo, timeoutMs: 60_000 });
    if (rm.exitCode !== 0 && existsSync(r.path)) {
      rmSync(r.path, { recursive: true, force: true });
      // The directory is gone now, so git drops just this worktree's admin entry (not `git worktree prune`: see removeIfDone).
      await git(['worktree', 'remove', '--force', '--force', r.path], { cwd: r.repo, timeoutMs: 30_000 });
    }
    const del = o.keepBranch ? undefined : await git(['branch', '-D', r.branch], { cwd: r.repo, timeoutMs: 5000 });
    return { removed: r.path, branch_deleted: del?.exitCode === 0 };
  });
}

/**
 * Prune's removal, refused whole unless `held` (run under the repository lock, so no castellan commit lands between)
 * finds nothing. No --force: git itself refuses if a file appeared since the check. The branch is deleted only at the
 * tip read before the check (compare-and-swap), so a commit made meanwhile keeps it.
 */
export async function removeIfDone(r: WorktreeRecord, held: () => Promise<string[]>): Promise<string[]> {
  return exclusive(r, 'prune', async () => {
    const tip = await git(['rev-parse', '-q', '--verify', `refs/heads/${r.branch}`], { cwd: r.repo, timeoutMs: 5000 });
    const why = await held();
    if (why.length) return why;
    // Also for a directory deleted by hand: git then drops only this worktree's admin entry (never `git worktree
    // prune`, which would drop every stale entry's HEAD reflog, other people's detached commits included).
    const rm = await git(['worktree', 'remove', r.path], { cwd: r.repo, timeoutMs: 60_000 });
    if (rm.exitCode !== 0 && existsSync(r.path)) return [`git worktree remove refused, nothing was deleted: ${firstLines(rm.stderr || rm.stdout)}`];
    if (tip.exitCode === 0) await git(['update-ref', '-d', `refs/heads/${r.branch}`, tip.stdout.trim()], { cwd: r.repo, timeoutMs: 5000 });
    return [];
  });
}
