// E2E (real bin, no tty): what a tmux user types first — --help after any command, tmux's spellings, one-string commands, the LICENSE.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runCli } from '../../src/cli/run.js';
import { COMMAND_ROWS } from '../../src/cli/table.js';
import { TMUX_ROWS } from '../../src/cli/tmux-rows.js';
import { nodeChildJson } from '../support/node-child.js';
import { REPO, tempEnvFor } from '../support/temp-env.js';
import { readPane } from '../support/term-harness.js';
import { waitFor } from '../support/wait-for.js';

test('--help and -h after every command print its usage and exit 0 (no "Unknown option")', async (t) => {
  // Every command in process (the CLI's own code, one Node start for all 84), then the real bin for the parts a process
  // adds: the shim, the fast CommonJS entry, and every lazily loaded command module of the bundle.
  for (const [i, name] of COMMAND_ROWS.map((r) => r.name).entries()) {
    // popup takes -h as tmux's display-popup does (its height): only --help asks it for help.
    const flag = i % 2 && name !== 'popup' ? '-h' : '--help';
    const r = await cliInProcess([...name.split(' '), flag]);
    assert.equal(r.code, 0, `castellan ${name} ${flag}: ${r.stderr}`);
    assert.match(r.stdout, /^usage: /, `castellan ${name} ${flag} prints its usage`);
    assert.doesNotMatch(r.stderr, /Unknown option/);
  }
  const env = tempEnvFor(t);
  const split = await env.cli(['pane', 'split', '--direction', 'down', '--help']);
  assert.equal(split.code, 0);
  assert.match(split.stdout, /usage: castellan pane split/);
  assert.match(split.stdout, /sh -c/, 'the help says how a one-string command runs');
  const lazy = await env.cli(['worktree', 'prune', '-h']);
  assert.equal(lazy.code, 0, lazy.stderr);
  assert.match(lazy.stdout, /^usage: castellan worktree prune/, 'a command the fast entry does not carry, from its own module');
  const bundle = join(REPO, 'dist', 'bundle');
  if (!existsSync(bundle)) return t.diagnostic('dist/bundle not built (no esbuild): the lazy command modules are tsc\'s');
  const entries = readdirSync(bundle).filter((f) => /^lazy-cli-commands-.*\.js$/.test(f));
  assert.ok(entries.length > 30, `the bundle's command modules: ${entries.length}`);
  const loaded = await nodeChildJson<Array<[string, string]>>(
    `const out = []; for (const f of ${JSON.stringify(entries)}) { const m = await import(${JSON.stringify(pathToFileURL(bundle).href)} + '/' + f); const def = typeof m.tmuxAlias === 'function' ? m.tmuxAlias(${JSON.stringify(TMUX_ROWS[0].name)}) : m.default; out.push([f, typeof def?.run === 'function' ? def.usage : 'no command']); } console.log(JSON.stringify(out));`,
    { HOME: env.home },
  );
  for (const [f, usage] of loaded) assert.match(usage, /^castellan /, `${f} is a command with its usage`);
});

/** runCli with its output kept (the CLI in this process). */
async function cliInProcess(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) } });
  return { code, stdout, stderr };
}

test("tmux's spellings: ls, new -d -s NAME, a -h, help ls, kill-session -t NAME, kill-server", async (t) => {
  const env = tempEnvFor(t);
  const none = await env.cli(['ls']);
  assert.equal(none.code, 1, 'nothing running and nothing saved: ls exits 1, as tmux does');
  assert.match(none.stderr, /no sessions/);

  const started = await env.cli(['new', '-d', '-s', 'work'], { timeoutMs: 20_000 });
  assert.equal(started.code, 0, started.stderr);
  assert.match(started.stdout, /session work runs on .*work\.sock/);
  const listed = await env.cli(['list-sessions']);
  assert.match(listed.stdout, /^work\s+detached\s+\d+\s+1\s+1\s/m, `ls lists the new session, not attached: ${listed.stdout}`);
  assert.equal((await env.cli(['ls'])).stdout, listed.stdout, 'ls and list-sessions are the same command');

  const a = await env.cli(['a', '-h']);
  assert.equal(a.code, 0);
  assert.match(a.stdout, /usage: castellan attach/);
  assert.match(a.stdout, /also spelled: .*castellan a\b/);
  const help = await env.cli(['help', 'ls']);
  assert.match(help.stdout, /usage: castellan session list/);
  const top = await env.cli(['--help']);
  assert.match(top.stdout, /kill-session .*for good/);

  const killed = await env.cli(['kill-session', '-t', 'work'], { timeoutMs: 20_000 });
  assert.equal(killed.code, 0, killed.stderr);
  assert.match(killed.stdout, /session work killed; its snapshot is kept aside for a day \(castellan session restore work brings it back\)/);
  await waitFor(async () => (await env.cli(['ls'])).code === 1 || undefined, { timeoutMs: 10_000, message: 'work is gone from ls, not saved to come back' });
  const snaps = await env.cli(['session', 'snapshots']);
  assert.match(snaps.stdout, /^work\s+killed/m, `session snapshots lists the killed one: ${snaps.stdout}`);
  const nosuch = await env.cli(['kill-session', '-t', 'nosuch']);
  assert.equal(nosuch.code, 3);
  assert.match(nosuch.stderr, /can't find session: nosuch/);

  assert.equal((await env.cli(['server', 'start'])).code, 0);
  assert.equal((await env.cli(['kill-server'], { timeoutMs: 20_000 })).code, 0);
  await waitFor(async () => !(await env.serverRunning()), { timeoutMs: 10_000, message: 'kill-server stops the default session' });
  assert.equal((await env.cli(['ls'])).code, 1, 'a killed default session is not listed as saved');
  const unknown = await env.cli(['kill-window-now']);
  assert.equal(unknown.code, 2, 'an unknown command is still a usage error');
});

test('attach only attaches: a -t nosuch is an error and starts nothing; a stopped session is saved, listed and comes back', async (t) => {
  const env = tempEnvFor(t);
  const nosuch = await env.cli(['a', '-t', 'nosuch']);
  assert.equal(nosuch.code, 1);
  assert.match(nosuch.stderr, /can't find session: nosuch \(castellan new -s nosuch creates it/);
  assert.equal((await env.cli(['ls'])).code, 1, 'no session was created');
  // Without a terminal, a start that would attach fails before any server starts.
  const notty = await env.cli(['new', '-s', 'tty']);
  assert.equal(notty.code, 1);
  assert.match(notty.stderr, /not a terminal.*no server was started/);
  assert.equal((await env.cli(['ls'])).code, 1, 'no server left behind');

  assert.equal((await env.cli(['new', '-d', '-s', 'keep'], { timeoutMs: 20_000 })).code, 0);
  const stopped = await env.cli(['session', 'stop', 'keep'], { timeoutMs: 20_000 });
  assert.match(stopped.stdout, /will be restored at the next start/);
  const ls = await env.cli(['ls']);
  assert.equal(ls.code, 0, ls.stderr);
  assert.match(ls.stdout, /^keep\s+saved\s+-\s+1\s+1\s/m, ls.stdout);
  assert.match(ls.stdout, /saved sessions come back with: castellan a -t keep/);
  // attach -d brings a saved session back (what `a -t keep` does on a terminal).
  const back = await env.cli(['attach', '-d', '-t', 'keep'], { timeoutMs: 20_000 });
  assert.equal(back.code, 0, back.stderr);
  assert.match((await env.cli(['ls'])).stdout, /^keep\s+detached\s/m);
  assert.equal((await env.cli(['session', 'stop', 'keep', '--forget'], { timeoutMs: 20_000 })).code, 0, 'session stop --forget is accepted');
  assert.equal((await env.cli(['ls'])).code, 1);
});

test('kill-session keeps the last state aside a day; session restore brings it back, and a --no-restore start sets the old snapshot aside', async (t) => {
  const env = tempEnvFor(t);
  assert.equal((await env.cli(['new', '-d', '-s', 'k'], { timeoutMs: 20_000 })).code, 0);
  assert.equal((await env.cli(['--session', 'k', 'window', 'new'])).code, 0);
  assert.equal((await env.cli(['kill-session', '-t', 'k'], { timeoutMs: 20_000 })).code, 0);
  const restored = await env.cli(['session', 'restore', 'k'], { timeoutMs: 20_000 });
  assert.equal(restored.code, 0, restored.stderr);
  const windows = await waitFor(async () => {
    const r = await env.cli(['--session', 'k', 'window', 'list', '--json']);
    const w = r.code === 0 ? (JSON.parse(r.stdout) as unknown[]) : [];
    return w.length === 2 ? w : undefined;
  }, { timeoutMs: 15_000, message: 'the killed session came back with its two windows' });
  assert.equal(windows.length, 2);
  assert.equal((await env.cli(['session', 'stop', 'k'], { timeoutMs: 20_000 })).code, 0);
  // A start that does not restore keeps the snapshot it would have written over.
  assert.equal((await env.cli(['--no-restore', 'new', '-d', '-s', 'k'], { timeoutMs: 20_000 })).code, 0);
  const snaps = await env.cli(['session', 'snapshots']);
  assert.match(snaps.stdout, /^k\s+replaced/m, snaps.stdout);
  assert.equal((await env.cli(['session', 'stop', 'k', '--forget'], { timeoutMs: 20_000 })).code, 0);
  const again = await env.cli(['session', 'restore', 'k'], { timeoutMs: 20_000 });
  assert.equal(again.code, 0, again.stderr);
  await waitFor(async () => {
    const r = await env.cli(['--session', 'k', 'window', 'list', '--json']);
    return r.code === 0 && (JSON.parse(r.stdout) as unknown[]).length === 2 ? true : undefined;
  }, { timeoutMs: 15_000, message: 'the replaced snapshot came back' });
  const running = await env.cli(['session', 'restore', 'k']);
  assert.equal(running.code, 1);
  assert.match(running.stderr, /is running; stop it first/);
});

test("pane split -- 'echo a && echo b' runs the line through sh -c, as tmux does", async (t) => {
  const env = tempEnvFor(t);
  assert.equal((await env.cli(['server', 'start', '--cols', '100', '--rows', '30'])).code, 0);
  const r = await env.cli(['pane', 'split', '--pane', 'w1:p1', '--', 'echo AA-$((40+2)) && echo BB-$((6*7)); sleep 30']);
  assert.equal(r.code, 0, r.stderr);
  const id = r.stdout.trim();
  const lines = await waitFor(async () => {
    const l = await readPane(env, id);
    return l.includes('AA-42') && l.includes('BB-42') ? l : undefined;
  }, { timeoutMs: 10_000, message: 'both commands of the line ran' });
  assert.ok(!lines.some((l) => /command not found|No such file/.test(l)), lines.join('\n'));
  const argv = await env.cli(['pane', 'split', '--pane', 'w1:p1', '--', 'sh', '-c', 'echo "ARG=$0"; sleep 30', 'a && b']);
  const id2 = argv.stdout.trim();
  await waitFor(async () => (await readPane(env, id2)).includes('ARG=a && b'), { message: 'an argv of several words runs as given' });
});

test('LICENSE: MIT, copyright castellan authors, as package.json says', () => {
  const text = readFileSync(join(REPO, 'LICENSE'), 'utf8');
  assert.match(text, /^MIT License/);
  assert.match(text, /Copyright \(c\) \d{4} castellan authors/);
  assert.equal(JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).license, 'MIT');
});
