// `castellan machine add/list/rename/disable/enable/remove` as a user types them, hostile arguments included.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempEnvFor } from '../support/temp-env.js';

test('machine add, list, rename, disable, enable, remove', { timeout: 120_000 }, async (t) => {
  const env = tempEnvFor(t);
  const file = join(env.home, '.castellan', 'machines.json');
  const ok = async (...args: string[]) => {
    const r = await env.cli(['machine', ...args]);
    assert.equal(r.code, 0, `machine ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  assert.match(await ok('list'), /no machines/);
  await ok('add', 'box', 'user@build.example.com');
  await ok('add', 'gpu', 'ssh://me@gpu:2222', '--session', 'train');
  assert.match(await ok('list'), /NAME\s+TARGET\s+SESSION\s+ENABLED\nbox\s+user@build\.example\.com\s+default\s+yes\ngpu\s+ssh:\/\/me@gpu:2222\s+train\s+yes/);
  await ok('rename', 'box', 'build');
  await ok('disable', 'gpu');
  assert.deepEqual(JSON.parse(await ok('list', '--json')), [
    { name: 'build', target: 'user@build.example.com', session: null, enabled: true },
    { name: 'gpu', target: 'ssh://me@gpu:2222', session: 'train', enabled: false },
  ]);
  await ok('enable', 'gpu');
  await ok('remove', 'build');
  assert.deepEqual(JSON.parse(await ok('list', '--json')).map((m: { name: string }) => m.name), ['gpu']);
  assert.doesNotMatch(readFileSync(file, 'utf8'), /password|key|token/i, 'nothing secret is stored');

  // Hostile arguments: each a usage error (exit 2), and the file is left as it was.
  const before = readFileSync(file, 'utf8');
  for (const args of [
    ['add', 'evil', '-oProxyCommand=touch /tmp/x'],
    ['add', 'evil', '--', '-oProxyCommand=touch /tmp/x'],
    ['add', 'a/b', 'host'],
    ['add', 'a\u001b[2Jb', 'host'],
    ['add', 'local', 'host'],
    ['add', 'gpu', 'elsewhere'],
    ['add', 'x', 'host with space'],
    ['add', 'x', 'host', '--session', '../../etc'],
    ['add', 'x'],
    ['rename', 'gpu', '-x'],
    ['rename', 'nope', 'other'],
    ['remove', 'nope'],
    ['disable', 'nope'],
  ]) {
    const r = await env.cli(['machine', ...args]);
    // A bad --session is refused by the CLI's own session check first (exit 1), as for every command.
    assert.equal(r.code, args.includes('--session') ? 1 : 2, `machine ${JSON.stringify(args)}: ${r.stdout}${r.stderr}`);
    assert.doesNotMatch(r.stderr, /\u001b/, 'the error message carries no escape sequence');
  }
  assert.equal(readFileSync(file, 'utf8'), before);

  // A broken file is reported, never overwritten and never a stack trace.
  writeFileSync(file, '{"version":1,"machines":[{"name":"x","target":"-oProxyCommand=sh"}]}');
  const list = await env.cli(['machine', 'list']);
  assert.equal(list.code, 1);
  assert.match(list.stderr, /machines\.json: .*starts with '-'.*fix or remove it/);
  assert.doesNotMatch(list.stderr, /\n\s+at /);
  const add = await env.cli(['machine', 'add', 'y', 'host']);
  assert.equal(add.code, 1);
  assert.match(readFileSync(file, 'utf8'), /-oProxyCommand=sh/, 'the user\'s file is kept for them to fix');
  assert.ok(!existsSync(`${file}.tmp`));
  const herd = await env.cli(['herd', 'list', '--machine', 'x']);
  assert.equal(herd.code, 1);
  assert.match(herd.stderr, /starts with '-'/);

  // The bridge is plumbing: not in the command list, but it has help.
  assert.doesNotMatch((await env.cli(['--help'])).stdout, /machine bridge/);
  assert.match((await env.cli(['machine', 'bridge', '--help'])).stdout, /^usage: castellan machine bridge/);
});
