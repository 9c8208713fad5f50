// share/hooks/agent-state.sh: reports through the socket (nc when it can, else castellan's CLI), escapes what it sends, checks what it is given.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempEnv, type TempEnv } from '../support/temp-env.js';

const SCRIPT = fileURLToPath(new URL('../../share/hooks/agent-state.sh', import.meta.url));

describe('agent-state.sh', () => {
  let env: TempEnv;
  let pane: string;
  before(async () => {
    env = makeTempEnv();
    const r = await env.cli(['server', 'start']);
    assert.equal(r.code, 0, r.stderr);
    pane = (await env.call<{ panes: Array<{ pane_id: string }> }>('pane.list')).panes[0].pane_id;
  });
  after(() => env.cleanup());

  const sh = (args: string[], extra: Record<string, string> = {}) =>
    spawnSync('/bin/sh', [SCRIPT, ...args], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: env.home, CASTELLAN_SOCKET: env.socket, ...extra }, encoding: 'utf8', timeout: 15_000 });
  const badge = async () => (await env.call<{ agent: { name?: string; state: string; source?: string; message?: string; hook_locked: boolean } }>('pane.get', { pane_id: pane })).agent;

  test('reports a state with source hook; quotes, backslashes, newlines and shell syntax in the message arrive intact', async () => {
    const msg = 'needs "you" \\ now\n$(touch /tmp/pwned) `id` \'q\' \t tab é ✓\x1b[31m';
    const r = sh([pane, 'aider', 'blocked', msg]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, '');
    const b = await badge();
    assert.deepEqual([b.name, b.state, b.source, b.hook_locked], ['aider', 'blocked', 'hook', true]);
    // Control characters (ESC) are dropped; tab and newline travel JSON-escaped.
    assert.equal(b.message, 'needs "you" \\ now\n$(touch /tmp/pwned) `id` \'q\' \t tab é ✓[31m');
    assert.ok(!existsSync('/tmp/pwned'));
  });

  test('"." means the pane it runs in, and does nothing outside a castellan pane', async () => {
    let r = sh(['.', 'aider', 'working'], { CASTELLAN_ENV: '1', CASTELLAN_PANE_ID: pane });
    assert.equal(r.status, 0, r.stderr);
    assert.equal((await badge()).state, 'working');
    r = sh(['.', 'aider', 'done']);
    assert.deepEqual([r.status, r.stdout, r.stderr], [0, '', '']);
    assert.equal((await badge()).state, 'working');
  });

  test('bad arguments: exit 2, nothing sent', async () => {
    for (const args of [[], [pane, 'aider'], ['w1:p1"', 'aider', 'idle'], ['w1:p', 'aider', 'idle'], [pane, 'ai"der', 'idle'], [pane, 'aider', 'busy'], [pane, '', 'idle']]) {
      const r = sh(args);
      assert.equal(r.status, 2, `${JSON.stringify(args)}: ${r.stderr}`);
    }
    assert.equal(sh([pane, 'aider', 'idle'], { CASTELLAN_REPORT_SOURCE: 'heuristic' }).status, 2);
    assert.equal((await badge()).state, 'working');
  });

  test('uses nc -U when there is one that can do Unix sockets', async () => {
    // A stand-in nc (this machine has none): speaks the socket through node, and leaves a mark.
    const bin = join(env.root, 'fake-nc');
    mkdirSync(bin, { recursive: true });
    const mark = join(env.root, 'nc-used');
    writeFileSync(
      join(bin, 'nc'),
      `#!${process.execPath}
const a = process.argv.slice(2);
if (a[0] === '-h') { process.stderr.write('usage: nc [-U] [-w timeout] [destination]\\n'); process.exit(1); }
require('fs').writeFileSync(${JSON.stringify(mark)}, a.join(' '));
const s = require('net').connect(a[a.length - 1]);
let input = ''; process.stdin.on('data', (d) => (input += d)).on('end', () => s.write(input));
s.on('data', (d) => { process.stdout.write(d); s.destroy(); });
`,
    );
    chmodSync(join(bin, 'nc'), 0o755);
    const r = sh([pane, 'aider', 'done', 'via nc'], { PATH: `${bin}:${process.env.PATH}` });
    assert.equal(r.status, 0, r.stderr);
    assert.match(readFileSync(mark, 'utf8'), /^-U -w 1 /);
    const b = await badge();
    assert.deepEqual([b.state, b.message], ['done', 'via nc']);
    // An error reply through nc is an error.
    const bad = sh(['w99:p9', 'aider', 'done'], { PATH: `${bin}:${process.env.PATH}` });
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /pane_not_found/);
  });

  test('no server: exit 1 with a message', () => {
    const r = sh([pane, 'aider', 'idle'], { CASTELLAN_SOCKET: join(env.root, 'nope.sock') });
    assert.equal(r.status, 1);
    assert.notEqual(r.stderr, '');
  });
});
