// What an agent's worktree holds against its base: the change summary for the border, the file list and the diff for the review.
import { existsSync, openSync, readSync, closeSync, fstatSync } from 'node:fs';
import { join } from 'node:path';
import { WorktreeError } from './errors.js';
import { git, gitOk } from './git.js';
import type { ChangeSummary, WorktreeRecord } from './record.js';

/** Untracked files read for their line count: a few small ones, so one huge file never stalls a summary. */
const UNTRACKED_READ = { files: 200, bytes: 256 * 1024 };

export interface FileChange {
  path: string;
  /** A added, M modified, D deleted, R renamed, ? untracked. */
  status: string;
  added: number;
  removed: number;
}

/** The commit the branch is compared with: its base branch's merge base (so base's own new commits do not show), else the commit it started from. */
export async function compareBase(r: WorktreeRecord): Promise<string> {
  if (r.base) {
    const mb = await git(['merge-base', `refs/heads/${r.base}`, 'HEAD'], { cwd: r.path, timeoutMs: 5000 });
    if (mb.exitCode === 0 && mb.stdout.trim()) return mb.stdout.trim();
  }
  return r.baseCommit;
}

function lineCount(file: string): number {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > UNTRACKED_READ.bytes) return 0;
    const buf = Buffer.alloc(st.size);
    readSync(fd, buf, 0, st.size, 0);
    if (buf.includes(0)) return 0;
    let n = 0;
    for (const b of buf) if (b === 10) n++;
    return n + (buf.length && buf[buf.length - 1] !== 10 ? 1 : 0);
  } catch {
    return 0;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Every file that differs from the base (committed or not), with its +/- lines; untracked files count as added. */
export async function fileChanges(r: WorktreeRecord): Promise<{ files: FileChange[]; ahead: number; uncommitted: number }> {
  if (!existsSync(r.path)) throw new WorktreeError(`the worktree ${r.path} was deleted (by hand?): castellan worktree discard --pane ${r.pane ?? '?'} forgets it, or castellan worktree prune`, 'worktree_missing');
  const base = await compareBase(r);
  const [numstat, names, status, ahead] = await Promise.all([
    gitOk(['diff', '--no-ext-diff', '--no-textconv', '--numstat', '-z', '--no-renames', base], { cwd: r.path, what: 'git diff --numstat' }),
    gitOk(['diff', '--no-ext-diff', '--name-status', '-z', '--no-renames', base], { cwd: r.path, what: 'git diff --name-status' }),
    gitOk(['status', '--porcelain=v2', '-z', '--untracked-files=all'], { cwd: r.path, what: 'git status' }),
    gitOk(['rev-list', '--count', `${base}..HEAD`], { cwd: r.path, what: 'git rev-list' }),
  ]);
  const kinds = new Map<string, string>();
  const ns = names.split('\0');
  for (let i = 0; i + 1 < ns.length; i += 2) kinds.set(ns[i + 1], ns[i].slice(0, 1));
  const files: FileChange[] = [];
  for (const rec of numstat.split('\0')) {
    const m = /^(-|\d+)\t(-|\d+)\t([\s\S]+)$/.exec(rec);
    if (!m) continue;
    files.push({ path: m[3], status: kinds.get(m[3]) ?? 'M', added: m[1] === '-' ? 0 : Number(m[1]), removed: m[2] === '-' ? 0 : Number(m[2]) });
  }
  let uncommitted = 0;
  let untracked = 0;
  for (const e of status.split('\0')) {
    if (e.startsWith('? ')) {
      const p = e.slice(2);
      uncommitted++;
      files.push({ path: p, status: '?', added: untracked++ < UNTRACKED_READ.files ? lineCount(join(r.path, p)) : 0, removed: 0 });
    } else if (/^[12u] /.test(e)) uncommitted++;
  }
  return { files, ahead: Number(ahead.trim()) || 0, uncommitted };
}

export async function summarize(r: WorktreeRecord): Promise<ChangeSummary> {
  if (!existsSync(r.path)) return { files: 0, added: 0, removed: 0, ahead: 0, uncommitted: 0, missing: true, at: Date.now() };
  const c = await fileChanges(r);
  return {
    files: c.files.length,
    added: c.files.reduce((n, f) => n + f.added, 0),
    removed: c.files.reduce((n, f) => n + f.removed, 0),
    ahead: c.ahead,
    uncommitted: c.uncommitted,
    at: Date.now(),
  };
}

/** The diff against the base, as a patch (what the review pipes to the pager); untracked files are listed, not diffed. */
export async function diffText(r: WorktreeRecord, o: { color?: boolean; maxBytes?: number } = {}): Promise<string> {
  const base = await compareBase(r);
  const color = `--color=${o.color ? 'always' : 'never'}`;
  let out = await gitOk(['diff', '--no-ext-diff', '--no-textconv', color, '--stat', '--patch', base], { cwd: r.path, what: 'git diff', partialOk: true });
  // New files the agent has not added: shown as additions too (git diff alone leaves them out), a bounded few.
  const status = await gitOk(['status', '--porcelain=v2', '-z', '--untracked-files=all'], { cwd: r.path, what: 'git status' });
  const untracked = status.split('\0').filter((e) => e.startsWith('? ')).map((e) => e.slice(2));
  for (const p of untracked.slice(0, UNTRACKED_READ.files)) {
    if (o.maxBytes && out.length > o.maxBytes) break;
    out += (await git(['diff', '--no-ext-diff', '--no-textconv', color, '--no-index', '--', '/dev/null', p], { cwd: r.path })).stdout;
  }
  if (untracked.length > UNTRACKED_READ.files) out += `\n… and ${untracked.length - UNTRACKED_READ.files} more new files\n`;
  return o.maxBytes && out.length > o.maxBytes ? `${out.slice(0, o.maxBytes)}\n… (diff cut at ${o.maxBytes} bytes)\n` : out;
}
