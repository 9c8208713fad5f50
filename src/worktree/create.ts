// Making an agent's worktree: checks that leave the repository as it was on refusal, then `git worktree add -b`.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, isAbsolute, join, resolve } from 'node:path';
import { WorktreeError } from './errors.js';
import { checkBranchName, git, gitOk, printable } from './git.js';
import { MARKER_FILE, type Marker, type WorktreeRecord } from './record.js';

export interface RepoInfo {
  top: string;
  commonDir: string;
  head: string;
  /** The checked-out branch ('' on a detached HEAD). */
  branch: string;
}

/** The repository `cwd` is in, or a clear error outside one. */
export async function repoAt(cwd: string, env?: NodeJS.ProcessEnv): Promise<RepoInfo> {
  if (!existsSync(cwd)) throw new WorktreeError(`${printable(cwd)} does not exist`, 'invalid_params');
  // One question per call: a path may hold a newline, so two answers on one output could not be told apart.
  const r = await git(['rev-parse', '--show-toplevel'], { cwd, env, timeoutMs: 5000 });
  if (r.spawnError) throw new WorktreeError('git is not installed (or not on PATH): --worktree needs it', 'git_missing');
  if (r.exitCode !== 0) throw new WorktreeError(`${printable(cwd)} is not inside a git repository: --worktree needs one (git init, or start the agent from a repository)`, 'not_a_repository');
  const top = r.stdout.replace(/\n$/, '');
  const common = top ? (await gitOk(['rev-parse', '--git-common-dir'], { cwd: top, env, what: 'git rev-parse' })).replace(/\n$/, '') : '';
  if (!top) throw new WorktreeError(`${printable(cwd)} is in a bare repository or a .git directory: --worktree needs a working tree`, 'not_a_repository');
  const h = await git(['rev-parse', '--verify', '-q', 'HEAD^{commit}'], { cwd: top, env, timeoutMs: 5000 });
  if (h.exitCode !== 0) throw new WorktreeError(`the repository at ${printable(top)} has no commits yet: commit something first, a worktree starts from HEAD`, 'no_commits');
  const b = await git(['symbolic-ref', '--short', '-q', 'HEAD'], { cwd: top, env, timeoutMs: 5000 });
  return { top, commonDir: isAbsolute(common) ? common : resolve(top, common), head: h.stdout.trim(), branch: b.exitCode === 0 ? b.stdout.trim() : '' };
}

/** Why castellan will not make a worktree of this repository, or undefined. */
async function refusal(repo: RepoInfo): Promise<WorktreeError | undefined> {
  if (existsSync(join(repo.top, '.gitmodules'))) {
    return new WorktreeError(`the repository at ${printable(repo.top)} has submodules (.gitmodules): a new worktree would have them empty, so castellan does not make one`, 'unsupported_repo');
  }
  const attrs = join(repo.top, '.gitattributes');
  if (existsSync(attrs)) {
    let t = '';
    try {
      t = readFileSync(attrs, 'utf8').slice(0, 256 * 1024);
    } catch {
      /* unreadable: treated as no attributes */
    }
    if (/filter=lfs\b/.test(t)) return new WorktreeError(`the repository at ${printable(repo.top)} uses Git LFS: its checkout runs git-lfs, so castellan does not make a worktree of it`, 'unsupported_repo');
  }
  return undefined;
}

const slug = (s: string) => s.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[-.]+|[-.]+$/g, '').slice(0, 40) || 'agent';

export interface CreateRequest {
  cwd: string;
  /** Where castellan keeps worktrees (under its state dir: never inside the user's checkout). */
  root: string;
  agent?: string;
  branch?: string;
  env?: NodeJS.ProcessEnv;
}

/**
 * Tracked files changed (staged or not) in the base checkout: the new worktree starts from HEAD without them. Said,
 * not refused: `git worktree add` never touches the base's working tree or index, so they stay where they are.
 */
async function baseChanges(repo: RepoInfo, env?: NodeJS.ProcessEnv): Promise<string[]> {
  const e = (await gitOk(['status', '--porcelain', '-z', '--untracked-files=no'], { cwd: repo.top, env, what: 'git status' })).split('\0');
  const out: string[] = [];
  for (let i = 0; i < e.length; i++) {
    if (e[i].length < 4) continue;
    out.push(e[i].slice(3));
    if (e[i][0] === 'R' || e[i][0] === 'C') i++;
  }
  return out;
}

export type Created = Omit<WorktreeRecord, 'pane' | 'parent'> & {
  /** Tracked files with uncommitted changes in the base when the worktree was made (not in it); at most 50 named. */
  baseUncommitted: string[];
};

/** Creates the worktree on a new branch from HEAD; on any failure the repository is as it was. */
export async function createWorktree(req: CreateRequest): Promise<Created> {
  const repo = await repoAt(req.cwd, req.env);
  const id = randomBytes(3).toString('hex');
  const branch = req.branch ?? `castellan/${slug(req.agent ?? 'agent')}-${id}`;
  await checkBranchName(branch, repo.top);
  const refused = await refusal(repo);
  if (refused) throw refused;
  const exists = await git(['show-ref', '--verify', '--quiet', `refs/heads/${branch}`], { cwd: repo.top, env: req.env, timeoutMs: 5000 });
  if (exists.exitCode === 0) throw new WorktreeError(`a branch named ${branch} already exists: give another name (--worktree NAME) or delete it`, 'branch_exists');
  const repoKey = `${slug(basename(repo.top))}-${createHash('sha256').update(repo.commonDir).digest('hex').slice(0, 8)}`;
  const leaf = slug(branch.replace(/\//g, '-'));
  const path = join(req.root, repoKey, leaf.endsWith(id) ? leaf : `${leaf}-${id}`);
  if (existsSync(path)) throw new WorktreeError(`${path} already exists`, 'worktree_exists');
  const add = await git(['worktree', 'add', '--quiet', '-b', branch, path, repo.head], { cwd: repo.top, env: req.env, timeoutMs: 60_000 });
  if (add.exitCode !== 0) {
    await undo(repo, branch, path, req.env);
    throw new WorktreeError(`git worktree add failed: ${(add.stderr || add.stdout).trim().split('\n').slice(0, 3).join(' / ') || (add.timedOut ? 'timed out' : 'no message')}`, 'git_failed');
  }
  const baseUncommitted = (await baseChanges(repo, req.env).catch(() => [])).slice(0, 50).map(printable);
  const rec = { id, path, branch, repo: repo.top, commonDir: repo.commonDir, base: repo.branch, baseCommit: repo.head, ...(req.agent ? { agent: req.agent } : {}), createdAt: Date.now() };
  try {
    const gitDir = (await gitOk(['rev-parse', '--absolute-git-dir'], { cwd: path, env: req.env })).replace(/\n$/, '');
    const marker: Marker = { castellan: 1, branch, base: repo.branch, path, id };
    writeFileSync(join(gitDir, MARKER_FILE), JSON.stringify(marker) + '\n', { mode: 0o600 });
  } catch (e) {
    await undo(repo, branch, path, req.env);
    throw e instanceof WorktreeError ? e : new WorktreeError(`could not mark the worktree: ${(e as Error).message}`);
  }
  return { ...rec, baseUncommitted };
}

/** Takes back a half-made worktree: its directory, git's record of it, and the branch (only if it is still at HEAD). */
async function undo(repo: RepoInfo, branch: string, path: string, env?: NodeJS.ProcessEnv): Promise<void> {
  await git(['worktree', 'remove', '--force', path], { cwd: repo.top, env, timeoutMs: 30_000 });
  rmSync(path, { recursive: true, force: true });
  // Again now the directory is gone: git drops just this admin entry (`git worktree prune` would drop every stale one).
  await git(['worktree', 'remove', '--force', path], { cwd: repo.top, env, timeoutMs: 10_000 });
  // Compare-and-swap: deleted only while it still points where it was made.
  await git(['update-ref', '-d', `refs/heads/${branch}`, repo.head], { cwd: repo.top, env, timeoutMs: 5000 });
}
