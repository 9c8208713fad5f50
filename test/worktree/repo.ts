// Test repositories: a temp git repo with a commit, git isolated from the user's config (no global, no system file).
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RpcError } from '../../src/api/client.js';

/** What every git call in these tests (and the server under test) sees: no user config, a fixed identity. */
export const GIT_ENV = { GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'Test', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 'Test', GIT_COMMITTER_EMAIL: 't@example.com' };

export function sh(cmd: string, args: string[], cwd: string): string {
  return execFileSync(cmd, args, { cwd, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd, ...GIT_ENV }, encoding: 'utf8' });
}

export const gitIn = (cwd: string, ...args: string[]) => sh('git', args, cwd);

/** A repository at DIR on branch main with one commit (shared.txt, README). */
export function makeRepo(dir: string): string {
  mkdirSync(dir, { recursive: true });
  gitIn(dir, 'init', '-q', '-b', 'main');
  gitIn(dir, 'config', 'user.name', 'Test');
  gitIn(dir, 'config', 'user.email', 't@example.com');
  writeFileSync(join(dir, 'shared.txt'), 'line 1\nline 2\nline 3\n');
  writeFileSync(join(dir, 'README'), 'readme\n');
  gitIn(dir, 'add', '-A');
  gitIn(dir, 'commit', '-q', '-m', 'first');
  return dir;
}

/**
 * The fake agent: prints READY, then runs lines it is sent: `WRITE FILE TEXT` (replaces FILE with TEXT and a newline),
 * `COMMIT MSG` (git commit -am), `QUIT`. It prints DONE n after each, so tests can wait for it.
 */
export function writeEditorAgent(home: string): string {
  const p = join(home, 'editor-agent.sh');
  writeFileSync(
    p,
    [
      '#!/bin/sh',
      'echo READY',
      'n=0',
      'while read -r cmd arg rest; do',
      '  n=$((n+1))',
      '  case "$cmd" in',
      '    WRITE) printf "%s\\n" "$rest" > "$arg" ;;',
      '    COMMIT) git add -A && git commit -q -m "$arg $rest" ;;',
      '    QUIT) exit 0 ;;',
      '  esac',
      '  echo "DONE $n"',
      'done',
      '',
    ].join('\n'),
  );
  chmodSync(p, 0o755);
  return p;
}

export function writeDefinition(home: string, name: string, script: string): void {
  const dir = join(home, '.castellan', 'agents');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${name}.md`), `---\nname: ${name}\ndescription: edits files for worktree tests\ncommand: sh ${script}\n---\n`);
}

/** What a call came to: "ok", or "code: message" of the error it was refused with. */
export async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (e) {
    return e instanceof RpcError ? `${e.code}: ${e.message}` : String(e);
  }
}
