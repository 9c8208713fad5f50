// E2E (real bin, no tty): what a tmux user types first — --help after any command, tmux's spellings, one-string commands, the LICENSE.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { COMMAND_ROWS } from '../../src/cli/table.js';
import { REPO, tempEnvFor } from '../support/temp-env.js';
import { readPane } from '../support/term-harness.js';
import { waitFor } from '../support/wait-for.js';

test('--help and -h after every command print its usage and exit 0 (no "Unknown option")', async (t) => {
  const env = tempEnvFor(t);
  const names = COMMAND_ROWS.map((r) => r.name);
  // Four at a time: the machine is shared.
  for (let i = 0; i < names.length; i += 4) {
    await Promise.all(
      names.slice(i, i + 4).map(async (name, k) => {
        const flag = (i + k) % 2 ? '-h' : '--help';
        const r = await env.cli([...name.split(' '), flag]);
        assert.equal(r.code, 0, `castellan ${name} ${flag}: ${r.stderr}`);
        assert.match(r.stdout, /^usage: /, `castellan ${name} ${flag} prints its usage`);
        assert.doesNotMatch(r.stderr, /Unknown option/);
      }),
    );
  }
  const split = await env.cli(['pane', 'split', '--direction', 'down', '--help']);
  assert.equal(split.code, 0);
  assert.match(split.stdout, /usage: castellan pane split/);
  assert.match(split.stdout, /sh -c/, 'the help says how a one-string command runs');
});

test("tmux's spellings: ls, new -d -s NAME, a -h, help ls, kill-session -t NAME, kill-server", async (t) => {
  const env = tempEnvFor(t);
  const none = await env.cli(['ls']);
  assert.equal(none.code, 0, none.stderr);
  assert.match(none.stdout, /no sessions running/);

  const started = await env.cli(['new', '-d', '-s', 'work'], { timeoutMs: 20_000 });
  assert.equal(started.code, 0, started.stderr);
  assert.match(started.stdout, /session work runs on .*work\.sock/);
  const listed = await env.cli(['list-sessions']);
  assert.match(listed.stdout, /^work\s+\d+\s+1\s+1\s/m, `ls lists the new session: ${listed.stdout}`);
  assert.equal((await env.cli(['ls'])).stdout, listed.stdout, 'ls and list-sessions are the same command');

  const a = await env.cli(['a', '-h']);
  assert.equal(a.code, 0);
  assert.match(a.stdout, /usage: castellan \[--session NAME\] (\[--no-restore\] )?\[attach\]/);
  assert.match(a.stdout, /also spelled: .*castellan a\b/);
  const help = await env.cli(['help', 'ls']);
  assert.match(help.stdout, /usage: castellan session list/);
  const top = await env.cli(['--help']);
  assert.match(top.stdout, /session stop .*\(also: kill-session\)/);

  const killed = await env.cli(['kill-session', '-t', 'work'], { timeoutMs: 20_000 });
  assert.equal(killed.code, 0, killed.stderr);
  await waitFor(async () => /no sessions running/.test((await env.cli(['ls'])).stdout), { timeoutMs: 10_000, message: 'work is gone from ls' });

  assert.equal((await env.cli(['server', 'start'])).code, 0);
  assert.equal((await env.cli(['kill-server'], { timeoutMs: 20_000 })).code, 0);
  await waitFor(async () => !(await env.serverRunning()), { timeoutMs: 10_000, message: 'kill-server stops the default session' });
  const unknown = await env.cli(['kill-window-now']);
  assert.equal(unknown.code, 2, 'an unknown command is still a usage error');
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
