// The one door to git: argv arrays (never a shell string), a deadline, capped output, and no program the repository chose.
import { WorktreeError } from './errors.js';
import { runGit, type GitRun } from './run-git.js';


export const GIT_TIMEOUT_MS = 15_000;
const MAX_OUTPUT = 4 * 1024 * 1024;

/**
 * Every castellan git call runs with these: the repository may be untrusted (just cloned), so nothing it
 * configures may run a program on our behalf. Hooks (`post-checkout` runs on `git worktree add`, `pre-commit`
 * on commit, `post-merge`/`post-rewrite` on merge/rebase) are switched off, as are fsmonitor daemons, external
 * diff drivers and textconv filters. These are castellan's own bookkeeping calls; an agent's git calls in its
 * pane are its own business and keep the repository's hooks.
 */
const SAFE = ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false', '-c', 'diff.external=', '-c', 'core.pager=cat', '-c', 'color.ui=false', '-c', 'gc.auto=0', '-c', 'maintenance.auto=false'];

/** Variables git may see: enough to find the user's identity and config, nothing that prompts or pages. */
function gitEnv(base: NodeJS.ProcessEnv): Record<string, string> {
  const env: Record<string, string> = {};
  for (const k of ['PATH', 'HOME', 'USER', 'LOGNAME', 'TMPDIR', 'TZ', 'XDG_CONFIG_HOME', 'GIT_CONFIG_GLOBAL', 'GIT_CONFIG_SYSTEM', 'GIT_CONFIG_NOSYSTEM', 'GIT_AUTHOR_NAME', 'GIT_AUTHOR_EMAIL', 'GIT_COMMITTER_NAME', 'GIT_COMMITTER_EMAIL']) {
    const v = base[k];
    if (v !== undefined) env[k] = v;
  }
  env.PATH ||= '/usr/local/bin:/usr/bin:/bin';
  Object.assign(env, { LC_ALL: 'C', GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', GIT_EDITOR: 'true', GIT_OPTIONAL_LOCKS: '0', GIT_MERGE_AUTOEDIT: 'no' });
  return env;
}

export interface GitOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
  input?: string;
}

/** Runs `git ARGS` in `cwd`; never throws for a non-zero exit (see `gitOk`). */
export async function git(args: readonly string[], o: GitOptions): Promise<GitRun> {
  return runGit({ args: [...SAFE, ...args], cwd: o.cwd, env: gitEnv(o.env ?? process.env), timeoutMs: o.timeoutMs ?? GIT_TIMEOUT_MS, maxOutput: MAX_OUTPUT, input: o.input });
}

/** Runs git and returns stdout, or throws a WorktreeError naming what failed (a cut output too, unless `partialOk`: a diff for the eye). */
export async function gitOk(args: readonly string[], o: GitOptions & { what?: string; partialOk?: boolean }): Promise<string> {
  const r = await git(args, o);
  if (r.spawnError) throw new WorktreeError(`git could not start: ${r.spawnError}`, 'git_missing');
  if (r.timedOut) throw new WorktreeError(`${o.what ?? `git ${args[0]}`} took longer than ${o.timeoutMs ?? GIT_TIMEOUT_MS} ms and was stopped`, 'timeout');
  if (r.exitCode !== 0) throw new WorktreeError(`${o.what ?? `git ${args[0]}`} failed: ${firstLines(r.stderr || r.stdout)}`, 'git_failed', r.stderr);
  // A cut answer is no answer: a partial file list or commit list must not pass for the whole.
  if (r.truncated && !o.partialOk) throw new WorktreeError(`${o.what ?? `git ${args[0]}`} printed more than ${MAX_OUTPUT} bytes; castellan did not act on a partial answer`, 'git_failed');
  return r.stdout;
}

export function firstLines(s: string, n = 4): string {
  return s.trim().split('\n').slice(0, n).join(' / ').slice(0, 600) || 'no message';
}

/** Plain branch names only: letters, digits and `._/-`, not starting with `-` or `.`, and whatever else git itself refuses. */
const BRANCH = /^[A-Za-z0-9_][A-Za-z0-9._/-]{0,199}$/;

export async function checkBranchName(name: string, cwd: string): Promise<void> {
  if (!BRANCH.test(name) || name.includes('..') || name.includes('//') || name.endsWith('/') || name.endsWith('.lock') || name.endsWith('.')) {
    throw new WorktreeError(`"${printable(name)}" is not a branch name castellan will create (use letters, digits and . _ / -, not starting with - or .)`, 'invalid_params');
  }
  const r = await git(['check-ref-format', '--branch', name], { cwd, timeoutMs: 5000 });
  if (r.exitCode !== 0) throw new WorktreeError(`"${printable(name)}" is not a valid branch name (git check-ref-format)`, 'invalid_params');
}

/** For messages: a name from outside, without control characters and at a readable length. */
export function printable(s: string): string {
  const clean = s.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
  return clean.length > 80 ? `${clean.slice(0, 80)}…` : clean;
}
