// The V8 code cache of the bundled bridge (bin/castellan.js): written once, used after, and a corrupt, foreign, stale or
// linked cache file is never run: the hook still answers right, and the file is replaced by a good one of its own.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, chownSync, cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { BIN } from '../support/temp-env.js';
import { fakeDecidingServer, gateAnswer, runHook } from './bridge-support.js';

/** The bin's name for a bundle's cache (bin/castellan.js shortHash: FNV-1a of the bundle's path and node's flags). */
function cacheName(bundle: string, execArgv: readonly string[] = []): string {
  const s = `${bundle}\0${execArgv.join(' ')}`;
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return `hook-main-${process.version}-${process.arch}-${(h >>> 0).toString(36)}.v8cache`;
}
// The bin runs from its real path (a CommonJS main is resolved through links), and so names its bundle.
const CACHE = cacheName(join(dirname(realpathSync(BIN)), '..', 'dist', 'hook', 'hook-main.cjs'));
const onNode20 = Number(process.versions.node.split('.')[0]) < 22;

describe('the hook bridge code cache', { concurrency: false, skip: !onNode20 && 'Node 22+ uses module.enableCompileCache instead' }, () => {
  let dir: string;
  let srv: { close(): Promise<void> };
  let socket: string;
  let seq = 0;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cst-cc-'));
    socket = join(dir, 's.sock');
    srv = await fakeDecidingServer(socket);
  });
  after(async () => {
    await srv.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A fresh HOME (its own state dir, so its own cache); `local` points the bridge at no server, so it decides itself. */
  function home(): { home: string; cache: string } {
    const h = join(dir, `h${++seq}`);
    mkdirSync(join(h, '.castellan'), { recursive: true });
    // The local pipeline denies shell: what the bridge decides itself (no server) is a deny we can see.
    writeFileSync(join(h, '.castellan', 'config.toml'), '[governance.permissions]\nshell = "deny"\n');
    return { home: h, cache: join(h, '.local', 'state', 'castellan', CACHE) };
  }
  const call = (h: string, command: string, o: { local?: boolean; env?: Record<string, string>; bin?: string } = {}) =>
    runHook({
      bin: o.bin,
      agent: 'claude',
      event: 'PreToolUse',
      feed: { kind: 'whole', data: JSON.stringify({ session_id: 's', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command }, cwd: h }) },
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: h, LANG: 'C.UTF-8', CASTELLAN_ENV: '1', CASTELLAN_SOCKET: o.local ? join(h, 'none.sock') : socket, CASTELLAN_PANE_ID: 'w1:p1', ...o.env },
      cwd: h,
    });
  async function answersRight(h: string): Promise<void> {
    const ok = await call(h, 'ls');
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(ok.stdout, '');
    assert.equal(ok.stderr, '');
    const no = await call(h, 'echo forbidden');
    assert.equal(gateAnswer('claude', no.stdout)?.decision, 'deny', no.stdout + no.stderr);
  }

  test('the first call writes it (private, keyed to this bundle and node); later calls answer the same with it', async () => {
    const { home: h, cache } = home();
    await answersRight(h);
    assert.ok(existsSync(cache), 'no cache written');
    assert.equal(statSync(cache).mode & 0o777, 0o600);
    assert.match(readFileSync(cache).subarray(0, 200).toString('latin1'), new RegExp(`^castellan hook code cache 1 ${process.version} ${process.arch} \\d+ `));
    const before = statSync(cache).mtimeMs;
    await answersRight(h);
    assert.equal(statSync(cache).mtimeMs, before, 'a good cache is not rewritten');
  });

  test('writing it removes the cache file of the old, single name (before one per bundle), and nothing else', async () => {
    const { home: h, cache } = home();
    const state = dirname(cache);
    mkdirSync(state, { recursive: true, mode: 0o700 });
    const old = join(state, `hook-main-${process.version}-${process.arch}.v8cache`);
    const other = join(state, 'hook-main-v0.0.0-x64.v8cache');
    writeFileSync(old, 'stale', { mode: 0o600 });
    writeFileSync(other, 'not ours to judge', { mode: 0o600 });
    await answersRight(h);
    assert.ok(existsSync(cache), 'no cache written');
    assert.ok(!existsSync(old), 'the old-name cache is left behind');
    assert.ok(existsSync(other), 'another node\'s file was removed');
  });

  test('with the cache, a call the server cannot decide still loads the lazy governance pipeline and denies', async () => {
    const { home: h, cache } = home();
    await answersRight(h);
    assert.ok(existsSync(cache));
    const r = await call(h, 'ls', { local: true });
    assert.equal(r.code, 0, r.stderr);
    const a = gateAnswer('claude', r.stdout);
    assert.equal(a?.decision, 'deny', r.stdout + r.stderr);
    assert.doesNotMatch(a!.reason, /governance failed/);
  });

  for (const [name, spoil] of [
    ['corrupt (right header, garbage after it)', (cache: string) => writeFileSync(cache, Buffer.concat([readFileSync(cache).subarray(0, readFileSync(cache).indexOf(10) + 1), Buffer.alloc(70_000, 0xa5)]), { mode: 0o600 })],
    ['stale (another bundle: the header differs)', (cache: string) => writeFileSync(cache, Buffer.concat([Buffer.from(`castellan hook code cache 1 ${process.version} ${process.arch} 1 2 3 \n`), readFileSync(cache).subarray(readFileSync(cache).indexOf(10) + 1)]), { mode: 0o600 })],
    ['readable by others (not private)', (cache: string) => chmodSync(cache, 0o644)],
    ['writable by the group', (cache: string) => chmodSync(cache, 0o620)],
    ['empty', (cache: string) => writeFileSync(cache, '', { mode: 0o600 })],
    ...(process.getuid?.() === 0 ? ([['owned by another user', (cache: string) => chownSync(cache, 1, 1)]] as const) : []),
    ['truncated to its header', (cache: string) => writeFileSync(cache, readFileSync(cache).subarray(0, readFileSync(cache).indexOf(10) + 1), { mode: 0o600 })],
  ] as const)
    test(`a cache that is ${name}: not trusted, the hook answers right, and a good one replaces it`, async () => {
      const { home: h, cache } = home();
      await answersRight(h);
      spoil(cache);
      const spoilt = { bytes: readFileSync(cache), mode: statSync(cache).mode & 0o777, ino: statSync(cache).ino };
      await answersRight(h);
      assert.equal(statSync(cache).mode & 0o777, 0o600);
      // Replaced by rename: another file (inode), whatever its bytes.
      assert.notEqual(statSync(cache).ino, spoilt.ino, 'the spoilt cache was left in place');
      assert.match(readFileSync(cache).subarray(0, 200).toString('latin1'), /^castellan hook code cache 1 /);
    });

  test('a symlink where the cache goes: not followed for reading, replaced (not written through) on rewrite', async () => {
    const { home: h, cache } = home();
    await answersRight(h);
    const victim = join(h, 'victim');
    writeFileSync(victim, readFileSync(cache), { mode: 0o600 });
    rmSync(cache);
    symlinkSync(victim, cache);
    const victimBefore = readFileSync(victim);
    await answersRight(h);
    assert.ok(lstatSync(cache).isFile(), 'the link is replaced by a file of its own');
    assert.ok(readFileSync(victim).equals(victimBefore), 'the link target is untouched');
  });

  test('two checkouts in one state dir keep a cache each: neither rejects and rewrites the other', async () => {
    const { home: h, cache } = home();
    // Another checkout of the same build: its own bin/ and dist/hook/, so its own bundle path and inode.
    const other = join(dir, `other${seq}`);
    cpSync(dirname(realpathSync(BIN)), join(other, 'bin'), { recursive: true });
    cpSync(join(dirname(realpathSync(BIN)), '..', 'dist', 'hook'), join(other, 'dist', 'hook'), { recursive: true });
    const otherBin = join(other, 'bin', 'castellan.js');
    const otherCache = join(h, '.local', 'state', 'castellan', cacheName(join(realpathSync(other), 'dist', 'hook', 'hook-main.cjs')));
    assert.notEqual(otherCache, cache);
    for (const bin of [undefined, otherBin]) assert.equal((await call(h, 'ls', { bin })).code, 0);
    assert.ok(existsSync(cache) && existsSync(otherCache), readdirSync(join(h, '.local', 'state', 'castellan')).join(' '));
    const mtimes = [statSync(cache).mtimeMs, statSync(otherCache).mtimeMs];
    for (const bin of [undefined, otherBin, undefined, otherBin]) {
      const r = await call(h, 'echo forbidden', { bin });
      assert.equal(gateAnswer('claude', r.stdout)?.decision, 'deny', r.stdout + r.stderr);
    }
    assert.deepEqual([statSync(cache).mtimeMs, statSync(otherCache).mtimeMs], mtimes, 'a cache was rewritten: the two checkouts thrash');
  });

  test('CASTELLAN_HOOK_CODE_CACHE=0: no cache is read or written', async () => {
    const { home: h, cache } = home();
    const r = await call(h, 'ls', { env: { CASTELLAN_HOOK_CODE_CACHE: '0' } });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '');
    assert.ok(!existsSync(cache));
  });
});
