// castellan's shell parts (the hook door, the agent-state script, the crash reaper) run with a PATH that holds only POSIX
// utilities (test/support/posix-path.ts: no timeout, shims that refuse GNU-only usage), as on a stock Mac: a stuck
// payload writer still cannot hang the door, a report still gets its microsecond seq, and the reaper's portable path (ps)
// still ends a pane that ignores HUP and TERM, with the job that left its process group.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { doorCommand } from '../../src/integrations/command-line.js';
import { pidExists, processAlive } from '../../src/platform/proc/index.js';
import { REAPER_SCRIPT } from '../../src/server/reaper.js';
import { posixPath, type PosixPath } from '../support/posix-path.js';
import { waitFor } from '../support/wait-for.js';

const SHARE = fileURLToPath(new URL('../../share/hooks/', import.meta.url));
const SHIPPED = [join(SHARE, 'door.sh'), join(SHARE, 'agent-state.sh'), REAPER_SCRIPT];

let root: string;
let posix: PosixPath;
before(() => {
  root = mkdtempSync(join(tmpdir(), 'castellan-posix-'));
  posix = posixPath(join(root, 'bin'), { node: process.execPath });
});
after(() => rmSync(root, { recursive: true, force: true }));

const refused = () => (existsSync(posix.log) ? readFileSync(posix.log, 'utf8') : '');

test('the shipped shell parts name no GNU-only tool or flag', () => {
  for (const file of SHIPPED) {
    const code = readFileSync(file, 'utf8').split('\n').filter((l) => !/^\s*#/.test(l)).join('\n');
    for (const [what, re] of [['timeout(1)', /(^|[\s;|&(])timeout\s/], ['date %N', /date\s[^\n]*%N/], ['stat -c', /\bstat\s+-c/], ['readlink -f', /\breadlink\s+-f/], ['sed -i', /\bsed\s+-i/], ['long options of head', /\bhead\s+--/]] as const)
      assert.doesNotMatch(code, re, `${file} uses ${what}`);
  }
});

test('the shims refuse what GNU alone accepts (the PATH would otherwise prove nothing)', () => {
  const env = { PATH: posix.dir };
  try {
    assert.equal(spawnSync('/bin/sh', ['-c', 'date +%s%N'], { env }).status, 97);
    assert.equal(spawnSync('/bin/sh', ['-c', 'readlink -f .'], { env }).status, 97);
    assert.equal(spawnSync('/bin/sh', ['-c', 'stat -c %s /'], { env }).status, 97);
    assert.notEqual(spawnSync('/bin/sh', ['-c', 'command -v timeout'], { env }).status, 0);
    assert.equal(spawnSync('/bin/sh', ['-c', 'date +%s && head -c 1 </dev/null && sleep 0.01'], { env }).status, 0);
  } finally {
    rmSync(posix.log, { force: true });
  }
});

describe('door.sh with only POSIX tools', () => {
  /** A door whose request FIFO nobody reads and a live "server" pid (this process), and a bridge stand-in that says how it was called. */
  function fakeDoor() {
    const home = mkdtempSync(join(root, 'door-'));
    const socket = join(home, 'c.sock');
    mkdirSync(`${socket}.door`, { mode: 0o700 });
    execFileSync('mkfifo', ['-m', '600', join(`${socket}.door`, 'in')]);
    writeFileSync(join(`${socket}.door`, 'pid'), `${process.pid}\n`);
    const bridge = join(home, 'bridge.sh');
    writeFileSync(bridge, `#!/bin/sh\nn=$(wc -c)\necho "bridge $* unclosed=\${CASTELLAN_HOOK_UNCLOSED-} stdin=\${n##* }"\n`);
    chmodSync(bridge, 0o755);
    const env = { PATH: posix.dir, HOME: home, LANG: 'C', CASTELLAN_ENV: '1', CASTELLAN_SOCKET: socket, CASTELLAN_PANE_ID: 'w1:p1' };
    return { home, socket, env, line: doorCommand([bridge, 'BIN'], 'claude', 'PreToolUse') };
  }

  test('a payload writer that never closes: the watchdog (no timeout(1)) hands the call on at its deadline, nothing left running', async () => {
    const d = fakeDoor();
    const t0 = performance.now();
    const p = spawn('/bin/sh', ['-c', d.line], { env: d.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.setEncoding('utf8').on('data', (s: string) => (out += s));
    p.stdin.write('{"tool_name":"Bash","tool_input":{"command":"rm -rf x"}');
    // stdin is never ended: a stuck writer. The door's deadline for a PreToolUse payload is a few seconds.
    const killer = setTimeout(() => p.kill('SIGKILL'), 30_000);
    const code = await new Promise<number | null>((resolve) => p.on('close', resolve));
    clearTimeout(killer);
    const ms = performance.now() - t0;
    p.stdin.destroy();
    assert.equal(code, 0, out);
    assert.match(out, /^bridge BIN hook claude PreToolUse unclosed=\d+ stdin=0$/m, 'handed to the bridge as unclosed, with no stdin');
    assert.ok(ms < 15_000, `door.sh took ${Math.round(ms)} ms with a stuck writer`);
    assert.deepEqual(readdirSync(`${d.socket}.door`).sort(), ['in', 'pid'], 'its files are gone');
    assert.equal(refused(), '', 'no GNU-only usage');
  });

  test('a request FIFO nobody reads (a server that is not serving): handed on at the 3 s deadline', async () => {
    const d = fakeDoor();
    const r = spawnSync('/bin/sh', ['-c', d.line], { env: d.env, input: '{"tool_name":"Read"}', encoding: 'utf8', timeout: 30_000 });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^bridge BIN hook claude PreToolUse unclosed= stdin=20$/m);
    assert.deepEqual(readdirSync(`${d.socket}.door`).sort(), ['in', 'pid']);
    assert.equal(refused(), '');
  });
});

test('agent-state.sh with only POSIX tools: the report carries a microsecond seq (perl, not GNU date)', () => {
  const bin = join(root, 'nc-bin');
  mkdirSync(bin, { recursive: true });
  const sent = join(root, 'nc-sent');
  // A stand-in nc: claims -U, notes the request, answers a result.
  writeFileSync(join(bin, 'nc'), `#!/bin/sh\ncase "$1" in -h) echo "usage: nc [-U]"; exit 0 ;; esac\ncat > '${sent}'\necho '{"id":1,"result":{}}'\n`);
  chmodSync(join(bin, 'nc'), 0o755);
  const sock = join(root, 'fake.sock');
  // `[ -S ]` must hold: a real listening socket stands in for the server's.
  const server = spawn(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(sock)}, () => process.stdout.write('up\\n'))`], { stdio: ['ignore', 'pipe', 'ignore'] });
  try {
    const up = spawnSync('/bin/sh', ['-c', `i=0; while [ ! -S '${sock}' ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done; [ -S '${sock}' ]`]);
    assert.equal(up.status, 0, 'the stand-in socket listens');
    const before = Date.now() * 1000;
    const r = spawnSync('/bin/sh', [join(SHARE, 'agent-state.sh'), 'w1:p1', 'aider', 'working', 'hi'], { env: { PATH: `${bin}:${posix.dir}`, HOME: root, CASTELLAN_SOCKET: sock }, encoding: 'utf8', timeout: 15_000 });
    assert.equal(r.status, 0, r.stderr);
    const req = JSON.parse(readFileSync(sent, 'utf8')) as { params: { seq?: number; state: string } };
    assert.equal(req.params.state, 'working');
    assert.ok(typeof req.params.seq === 'number' && req.params.seq >= before - 1_000_000 && req.params.seq <= Date.now() * 1000 + 1_000_000, `seq ${req.params.seq} is microseconds now`);
    assert.equal(refused(), '');
  } finally {
    server.kill('SIGKILL');
  }
});

test('the reaper\'s portable path (ps, POSIX PATH): a pane that ignores HUP and TERM ends, with a job in its own process group', async (t) => {
  // A pane program leading its session; its job runs in a process group of its own (as a shell with job control puts it).
  const leader = spawn('/bin/sh', ['-c', 'trap "" HUP TERM; set -m; sh -c "trap \\"\\" HUP TERM; while :; do sleep 1; done" & echo $!; while :; do sleep 1; done'], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
  leader.unref();
  const job = Number(await new Promise<string>((resolve) => leader.stdout!.setEncoding('utf8').once('data', (s: string) => resolve(s.trim()))));
  t.after(() => {
    for (const pid of [leader.pid!, job]) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* gone, as it should be */
      }
    }
  });
  assert.ok(job > 1 && pidExists(job));
  const r = await new Promise<{ code: number | null; ms: number }>((resolve, reject) => {
    const t0 = Date.now();
    // No --proc: the path a system without /proc takes.
    const c = spawn('/bin/sh', [REAPER_SCRIPT], { env: { PATH: posix.dir }, stdio: ['pipe', 'ignore', 'ignore'] });
    c.on('error', reject);
    c.on('exit', (code) => resolve({ code, ms: Date.now() - t0 }));
    c.stdin!.end(`+${leader.pid}\n`);
  });
  assert.equal(r.code, 0, `reaper exit code (1: something outlived SIGKILL) after ${r.ms} ms`);
  await waitFor(() => !processAlive(leader.pid!) && !processAlive(job), { timeoutMs: 5000, message: 'the pane and its job end' });
  t.diagnostic(`portable reaper ended the pane and its job in ${r.ms} ms`);
  assert.equal(refused(), '');
});
