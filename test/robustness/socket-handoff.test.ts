// `new -d` claims and publishes the socket itself and hands it to the server it starts (src/server/socket-handoff.ts):
// it returns without waiting for the server's Node start, connections made meanwhile are served once it has loaded,
// and a server handed something else than the socket its starter published refuses it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolvePaths } from '../../src/platform/paths.js';
import { probePath } from '../../src/server/socket-bind.js';
import { startHandedOff } from '../../src/server/socket-handoff.js';
import { REPO, tempEnvFor } from '../support/temp-env.js';
import { waitFor } from '../support/wait-for.js';

const SOCKET_BIND = join(REPO, 'src', 'server', 'socket-bind.ts');

/** A stand-in server: takes the handed socket after `delayMs`, answers each line with a pong, ends on SIGTERM releasing the path. */
function standIn(dir: string, delayMs: number): string {
  const file = join(dir, 'stand-in.mjs');
  writeFileSync(
    file,
    `import { bindSocket } from ${JSON.stringify(SOCKET_BIND)};
const end = Date.now() + ${delayMs};
while (Date.now() < end) {}
const bound = await bindSocket(process.env.CASTELLAN_SOCKET);
(await import('node:fs')).writeFileSync(${JSON.stringify(join(dir, 'pid'))}, String(process.pid));
process.stdout.write('env:' + (process.env.CASTELLAN_HANDED_SOCKET ?? 'gone') + '\\n');
bound.serve((s) => s.on('data', () => s.end('{"id":"castellan-probe","result":{"pong":true}}\\n')));
process.on('SIGTERM', () => { bound.release(); bound.server.close(); process.exit(0); });
`,
  );
  return file;
}

/** One line from a connection made now: resolves with it, or rejects on error or close. */
function ask(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = net.connect(path, () => s.write('{"id":1,"method":"ping"}\n'));
    let got = '';
    s.on('data', (d) => (got += d));
    s.on('close', () => (got ? resolve(got) : reject(new Error('closed unanswered'))));
    s.on('error', reject);
  });
}

test('the starter publishes the socket and returns before the server has started; what connects meanwhile is served', { timeout: 30_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'cst-ho-'));
  const home = join(dir, 'h');
  const paths = resolvePaths({ session: 's', env: { HOME: home, XDG_STATE_HOME: join(home, 'state') } });
  const script = standIn(dir, 1500);
  mkdirSync(paths.stateDir, { recursive: true, mode: 0o700 });
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, CASTELLAN_SOCKET: paths.socket };
  const t0 = Date.now();
  assert.equal(await startHandedOff(paths, REPO, { args: ['--import', 'tsx', script], env }), true);
  const took = Date.now() - t0;
  t.after(async () => {
    // The stand-in wrote its pid once it took the socket (it answered below).
    await waitFor(() => existsSync(join(dir, 'pid')) || undefined, { timeoutMs: 10_000, message: 'the stand-in started' }).catch(() => undefined);
    try {
      process.kill(Number(readFileSync(join(dir, 'pid'), 'utf8')), 'SIGKILL');
    } catch {
      /* gone */
    }
    rmSync(dir, { recursive: true, force: true });
  });
  // At its path at once, before the stand-in (busy for 1.5 s after its Node start) could have taken it.
  assert.ok(lstatSync(paths.socket).isSocket(), 'the socket is at its path when the starter returns');
  assert.ok(took < 1500, `the starter returned after ${took} ms`);
  const early = ask(paths.socket);
  assert.match(await early, /pong/, 'a connection made before the server took the socket is answered');
  assert.equal(await probePath(paths.socket, 5000), 'live');
});

test('new -d returns while its server is still starting; the next call waits and finds the session', { timeout: 60_000 }, async (t) => {
  // A server that takes 4 s before it even runs castellan's code (a preload that only servers run: CASTELLAN_SERVER=1).
  const slow = join(mkdtempSync(join(tmpdir(), 'cst-slow-')), 'slow.cjs');
  writeFileSync(slow, "if (process.env.CASTELLAN_SERVER === '1') { const end = Date.now() + 4000; while (Date.now() < end) {} }\n");
  t.after(() => rmSync(join(slow, '..'), { recursive: true, force: true }));
  const e = tempEnvFor(t, { env: { NODE_OPTIONS: `--require ${slow}` } });
  const t0 = Date.now();
  const started = await e.cli(['new', '-d', '-s', 'quick'], { timeoutMs: 20_000 });
  const took = Date.now() - t0;
  assert.equal(started.code, 0, started.stderr);
  assert.match(started.stdout, /session quick runs on /);
  // Before: the CLI waited for the server to say "published", after its 4 s.
  assert.ok(took < 4000, `new -d took ${took} ms with a server that needs 4 s to start`);
  const sock = join(e.home, '.config', 'castellan', 'quick.sock');
  assert.ok(lstatSync(sock).isSocket(), 'its socket is at its path');
  // A connection made now waits in the socket's backlog until the server has loaded, then is answered.
  assert.equal(await probePath(sock, 30_000), 'live', e.logTail());
  const listed = await e.cli(['--session', 'quick', 'pane', 'list'], { timeoutMs: 30_000 });
  assert.equal(listed.code, 0, `${listed.stderr}\n${e.logTail()}`);
  assert.match(listed.stdout, /w1:p1/);
  assert.equal((await e.cli(['kill-session', '-t', 'quick'], { timeoutMs: 20_000 })).code, 0);
  await waitFor(() => !existsSync(sock) || undefined, { timeoutMs: 10_000, message: 'the socket is removed when its server ends' });
});

test('new -d beside a running server starts nothing; concurrent new -d of one session make one server', { timeout: 60_000 }, async (t) => {
  const e = tempEnvFor(t);
  const runs = await Promise.all([1, 2, 3].map(() => e.cli(['new', '-d', '-s', 'one'], { timeoutMs: 30_000 })));
  for (const r of runs) assert.equal(r.code, 0, r.stderr);
  const sock = join(e.home, '.config', 'castellan', 'one.sock');
  await waitFor(async () => (await probePath(sock, 2000)) === 'live' || undefined, { timeoutMs: 20_000, message: 'the session answers' });
  const servers = e.processes().filter((p) => {
    try {
      return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('server\0start\0--foreground');
    } catch {
      return false;
    }
  });
  assert.equal(servers.length, 1, `one server for session one: ${servers.join(' ')}`);
  const again = await e.cli(['new', '-d', '-s', 'one'], { timeoutMs: 20_000 });
  assert.equal(again.code, 0, again.stderr);
  assert.equal((await e.cli(['kill-session', '-t', 'one'], { timeoutMs: 20_000 })).code, 0);
});

/**
 * Runs bindSocket once per case in one fresh process, with CASTELLAN_HANDED_SOCKET = the case's `said` and, as the
 * descriptor it names, the case's `fd`: a file, a TCP listener, a Unix listener that is not at the path, or none.
 * Returns one line per case: TOOK, or REFUSED with the error's code and message and whether the variable was cleared.
 */
async function takeIn(dir: string, cases: { said: string; path: string; fd: 'file' | 'tcp' | 'unix-other' | 'none' | 'handed-unix' | 'handed-tcp' }[]): Promise<string[]> {
  const file = join(dir, 'take.mjs');
  writeFileSync(
    file,
    `import { bindSocket } from ${JSON.stringify(SOCKET_BIND)};
import net from 'node:net';
import { openSync } from 'node:fs';
const cases = JSON.parse(process.argv[2]);
for (const c of cases) {
  let fd = c.fd === 'handed-unix' ? 3 : c.fd === 'handed-tcp' ? 4 : 999;
  if (c.fd === 'file') fd = openSync(${JSON.stringify(file)}, 'r');
  if (c.fd === 'tcp' || c.fd === 'unix-other') {
    const srv = net.createServer();
    await new Promise((r) => (c.fd === 'tcp' ? srv.listen(0, '127.0.0.1', r) : srv.listen(${JSON.stringify(join(dir, 'other'))} + Math.random().toString(36).slice(2, 6), r)));
    fd = srv._handle.fd;
  }
  process.env.CASTELLAN_HANDED_SOCKET = c.said.replaceAll('FD', String(fd));
  try { await bindSocket(c.path); console.log('TOOK'); }
  catch (e) { console.log(('REFUSED ' + (e.code ?? '') + ' ' + e.message + ' env:' + (process.env.CASTELLAN_HANDED_SOCKET ?? 'gone')).replaceAll('\\n', ' ')); }
}
process.exit(0);
`,
  );
  // Handed down as a starter does: a Unix listener (not the one at the path) as 3, a TCP one as 4.
  const unix = net.createServer();
  const tcp = net.createServer();
  await new Promise<void>((r) => unix.listen(join(dir, 'handed.sock'), r));
  await new Promise<void>((r) => tcp.listen(0, '127.0.0.1', r));
  const fdOf = (srv: net.Server) => (srv as unknown as { _handle: { fd: number } })._handle.fd;
  try {
    const c = spawn(process.execPath, ['--import', 'tsx', file, JSON.stringify(cases)], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, stdio: ['ignore', 'pipe', 'inherit', fdOf(unix), fdOf(tcp)] });
    let out = '';
    c.stdout!.on('data', (d) => (out += d));
    await new Promise((r) => c.on('exit', r));
    return out.trim().split('\n');
  } finally {
    unix.close();
    tcp.close();
  }
}

test('hostile CASTELLAN_HANDED_SOCKET: malformed, not a socket, a TCP port, another socket than the published one: refused, nothing taken', { timeout: 60_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'cst-ho-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // The published socket of a live server at the path.
  const path = join(dir, 's.sock');
  const live = net.createServer((s) => s.end('{"id":"castellan-probe","result":{}}\n'));
  await new Promise<void>((r) => live.listen(path, r));
  t.after(() => live.close());
  const st = lstatSync(path, { bigint: true });
  const id = `${st.dev}:${st.ino}`;
  const malformed = ['', '3', 'x y', 'FD', `2 ${id}`, `0 ${id}`, `-1 ${id}`, `FD ${id} extra`, ` FD ${id}`, `FD ${'9'.repeat(30)}:1`, `99999 ${id}`, `FD 1:2\nFD 4:5`, `FD ${'1'.repeat(100_000)}`];
  const cases = [
    ...malformed.map((said) => ({ said, path, fd: 'unix-other' as const })),
    { said: `FD ${id}`, path, fd: 'file' as const },
    { said: `FD ${id}`, path, fd: 'none' as const },
    { said: `FD ${id}`, path, fd: 'tcp' as const },
    { said: `FD ${id}`, path, fd: 'handed-tcp' as const },
    // A Unix socket, but the path names another file than the one said: a successor's path is never served (or removed).
    { said: `FD ${st.dev}:${st.ino + 1n}`, path, fd: 'unix-other' as const },
    { said: `FD ${id}`, path: join(dir, 'missing.sock'), fd: 'unix-other' as const },
    // A Unix socket handed down with the path's file: taken (what a starter's server does).
    { said: `FD ${id}`, path, fd: 'handed-unix' as const },
  ];
  const r = await takeIn(dir, cases);
  assert.equal(r.length, cases.length, r.join('\n'));
  malformed.forEach((said, i) => assert.match(r[i], /^REFUSED EUNSAFE .*env:gone$/, `${JSON.stringify(said.slice(0, 40))}: ${r[i]}`));
  const k = malformed.length;
  assert.match(r[k], /^REFUSED EUNSAFE .*not a socket/);
  assert.match(r[k + 1], /^REFUSED EUNSAFE .*not a socket/);
  // (refused by Node here, where the listener has a handle already; a handed-down one by the address check)
  assert.match(r[k + 2], /^REFUSED EUNSAFE .*(not a Unix socket|cannot be listened on)/);
  assert.match(r[k + 3], /^REFUSED EUNSAFE .*not a Unix socket/);
  assert.match(r[k + 4], /^REFUSED EALREADY .*no longer the socket/);
  assert.match(r[k + 5], /^REFUSED EALREADY/);
  assert.equal(r[k + 6], 'TOOK');
  assert.ok(lstatSync(path).isSocket(), 'the live server keeps its path');
  assert.equal(await probePath(path), 'live');
});
