// What removing an agent's worktree would lose: every place an agent can leave work, each with a reason a person can act on.
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readFileBounded } from '../platform/read-file.js';
import { WorktreeError } from './errors.js';
import { git, gitOk, printable } from './git.js';
import type { WorktreeRecord } from './record.js';

/** Kinds of work, in the order they are reported. `ignored` is the one kind prune may be told to delete. */
export type WorkKind = 'uncommitted' | 'untracked' | 'ignored' | 'commits' | 'stash';

export interface Work {
  kind: WorkKind;
  count: number;
  /** A few names (files, `sha subject`, `stash@{n}: subject`), printable. */
  items: string[];
  /** One line for the user: what is held and how many. */
  why: string;
}

const SHOWN = 3;
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const sample = (xs: string[]) => (xs.length ? ` (${xs.slice(0, SHOWN).map(printable).join(', ')}${xs.length > SHOWN ? ', …' : ''})` : '');

/** Files: tracked changes, untracked and ignored ones (ignored directories as one entry, so node_modules/ is one line). */
async function files(path: string): Promise<Work[]> {
  const out = await gitOk(['status', '--porcelain', '-z', '--untracked-files=normal', '--ignored=traditional'], { cwd: path, what: 'git status' });
  const by: Record<'uncommitted' | 'untracked' | 'ignored', string[]> = { uncommitted: [], untracked: [], ignored: [] };
  const e = out.split('\0');
  for (let i = 0; i < e.length; i++) {
    const x = e[i];
    if (x.length < 4) continue;
    const xy = x.slice(0, 2);
    const name = x.slice(3);
    if (xy === '??') by.untracked.push(name);
    else if (xy === '!!') by.ignored.push(name);
    else {
      by.uncommitted.push(name);
      // A rename or copy is followed by its source path, which is no entry of its own.
      if (xy[0] === 'R' || xy[0] === 'C') i++;
    }
  }
  const work: Work[] = [];
  if (by.uncommitted.length) work.push({ kind: 'uncommitted', count: by.uncommitted.length, items: by.uncommitted.slice(0, SHOWN), why: `${plural(by.uncommitted.length, 'uncommitted change')}${sample(by.uncommitted)}` });
  if (by.untracked.length) work.push({ kind: 'untracked', count: by.untracked.length, items: by.untracked.slice(0, SHOWN), why: `${plural(by.untracked.length, 'untracked file')}${sample(by.untracked)}` });
  if (by.ignored.length) work.push({ kind: 'ignored', count: by.ignored.length, items: by.ignored.slice(0, SHOWN), why: `${plural(by.ignored.length, 'ignored file')}${sample(by.ignored)}` });
  return work;
}

/** The worktree's own HEAD ref name as seen from the main repository (`worktrees/NAME/HEAD`), found by its gitdir file. */
function adminHead(r: WorktreeRecord): string | undefined {
  const dir = join(r.commonDir, 'worktrees');
  let names: string[] = [];
  try {
    names = readdirSync(dir).slice(0, 1000);
  } catch {
    return undefined;
  }
  for (const n of names) {
    const g = readFileBounded(join(dir, n, 'gitdir'), 8192, { noFollow: true });
    if (g.ok && resolve(g.buf.toString('utf8').trim()) === resolve(r.path, '.git')) return `worktrees/${n}/HEAD`;
  }
  return undefined;
}

const lines = (s: string) => s.split('\n').filter(Boolean);

/** The HEAD reflog's shas and the branches it checked out (`checkout: moving from A to B`), or none. */
async function headLog(cwd: string, ref: string): Promise<{ shas: string[]; branches: Set<string> }> {
  const l = await git(['reflog', 'show', '--format=%H %gs', ref, '--'], { cwd });
  const shas: string[] = [];
  const branches = new Set<string>();
  // No reflog is an answer (none kept); a cut or timed-out one is not: a commit only it holds could be missed.
  if (l.truncated || l.timedOut || l.spawnError) throw new WorktreeError(`git reflog ${ref}: no complete answer`, 'git_failed');
  if (l.exitCode !== 0) return { shas, branches };
  for (const line of lines(l.stdout)) {
    shas.push(line.slice(0, line.indexOf(' ')));
    const m = / checkout: moving from (\S+) to (\S+)$/.exec(line);
    if (m) for (const b of [m[1], m[2]]) branches.add(b);
  }
  return { shas, branches };
}

/**
 * Commits only the worktree holds, and the stashes made in it. The tips: the worktree's HEAD (detached or not),
 * its branch, and both reflogs (so a commit left behind by a `checkout` or a reset, or made on a branch created in
 * the worktree, counts). A commit counts unless its base branch has it, or a commit with the same patch (a
 * rebased-away original whose copy was merged is no work).
 */
async function commitsAndStashes(r: WorktreeRecord, present: boolean): Promise<Work[]> {
  const repo = r.repo;
  const head = present ? 'HEAD' : adminHead(r);
  const cwd = present ? r.path : repo;
  const sha = async (ref: string, at: string) => {
    const x = await git(['rev-parse', '-q', '--verify', `${ref}^{commit}`], { cwd: at, timeoutMs: 5000 });
    if (x.timedOut || x.spawnError) throw new WorktreeError(`git rev-parse ${ref}: no answer`, 'git_failed');
    return x.exitCode === 0 ? x.stdout.trim() : '';
  };
  const none = { shas: [] as string[], branches: new Set<string>() };
  // Independent questions at once: a list of many worktrees waits for the slowest git, not the sum.
  const [baseSha, headSha, headLogged, branchSha, branchLogged, stashes] = await Promise.all([
    r.base ? sha(`refs/heads/${r.base}`, repo) : Promise.resolve(''),
    head ? sha(head, cwd) : Promise.resolve(''),
    head ? headLog(cwd, head) : Promise.resolve(none),
    sha(`refs/heads/${r.branch}`, repo),
    headLog(repo, `refs/heads/${r.branch}`),
    git(['stash', 'list', '--format=%gd%x09%P%x09%gs'], { cwd: repo, timeoutMs: 5000 }),
  ]);
  const safe = baseSha || r.baseCommit;
  const tips = new Set<string>([headSha, branchSha, ...headLogged.shas, ...branchLogged.shas]);
  const moved = headLogged.branches;
  const valid = [...tips].filter((t) => /^[0-9a-f]{40,64}$/.test(t));
  // Everything the tips reach that the base does not: one walk, the cheap answer for a worktree with nothing left.
  const outside = new Set(lines(await gitOk(['rev-list', '--stdin'], { cwd: repo, input: [...valid, `^${safe}`, ''].join('\n'), what: 'git rev-list' })));
  const work: Work[] = [];
  const ahead = valid.filter((t) => outside.has(t));
  if (ahead.length) {
    const unmerged = lines(await gitOk(['rev-list', '--stdin', '--right-only', '--cherry-pick', '--no-merges'], { cwd: repo, input: ahead.map((t) => `${safe}...${t}`).join('\n') + '\n', what: 'git rev-list --cherry-pick' }));
    if (unmerged.length) {
      const shown = lines(await gitOk(['log', '--no-walk=unsorted', '--format=%h %s', ...unmerged.slice(0, SHOWN)], { cwd: repo, what: 'git log' }));
      const onto = baseSha ? r.base : `the commit it started from (${r.baseCommit.slice(0, 10)})`;
      work.push({ kind: 'commits', count: unmerged.length, items: shown, why: `${plural(unmerged.length, 'commit')} not in ${printable(onto)}${sample(shown)}` });
    }
  }
  if (stashes.truncated || stashes.timedOut || stashes.spawnError) throw new WorktreeError('git stash list: no complete answer', 'git_failed');
  const mine: string[] = [];
  let detached: boolean | undefined;
  for (const line of stashes.exitCode === 0 ? lines(stashes.stdout) : []) {
    const [name, parents = '', subject = ''] = line.split('\t');
    const parent = parents.split(' ')[0];
    const on = /^(?:WIP on|On) (.+?): /.exec(subject)?.[1];
    // A stash is this worktree's when it was made on a branch the worktree had checked out, on top of a commit only the
    // worktree holds, or on the worktree's detached HEAD.
    if ((on && (on === r.branch || moved.has(on))) || outside.has(parent)) mine.push(`${name}: ${subject}`);
    else if (present && on === '(no branch)' && parent === headSha) {
      detached ??= (await git(['symbolic-ref', '-q', 'HEAD'], { cwd, timeoutMs: 5000 })).exitCode !== 0;
      if (detached) mine.push(`${name}: ${subject}`);
    }
  }
  if (mine.length) work.push({ kind: 'stash', count: mine.length, items: mine.slice(0, SHOWN), why: `${plural(mine.length, 'stash', 'stashes')} made in it${sample(mine)}` });
  return work;
}

/** Everything removing the worktree (and deleting its branch) would lose; empty when nothing. */
export async function heldWork(r: WorktreeRecord): Promise<Work[]> {
  const present = existsSync(r.path);
  const [f, c] = await Promise.all([present ? files(r.path) : Promise.resolve([]), commitsAndStashes(r, present)]);
  return [...f, ...c];
}
