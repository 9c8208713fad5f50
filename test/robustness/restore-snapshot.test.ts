// Hostile snapshots: too big, truncated, random, wrong version, deep, foreign, loose, symlinked, bombs, control characters, cwd gone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { loadSnapshot } from '../../src/restore/index.js';
import { planRestore, shellQuote, type PlanContext } from '../../src/restore/plan.js';
import { SNAPSHOT_VERSION, type Snapshot } from '../../src/restore/schema.js';
import { readSnapshot, snapshotDir, snapshotFile } from '../../src/restore/store.js';

function world(t: { after(fn: () => void): void }) {
  const root = mkdtempSync(join(tmpdir(), 'cst-rs-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const paths = { stateDir: join(root, 'state'), session: 'default' };
  mkdirSync(snapshotDir(paths), { recursive: true, mode: 0o700 });
  return { root, paths, file: snapshotFile(paths) };
}

function good(over: Partial<Snapshot> = {}): Snapshot {
  return {
    version: SNAPSHOT_VERSION,
    session: 'default',
    savedAt: Date.now(),
    cwd: '/',
    size: { cols: 80, rows: 24 },
    windows: [{ id: 'w1', layout: { kind: 'leaf', pane: 'w1:p1' }, active: 'w1:p1', panes: [{ id: 'w1:p1', command: ['/bin/sh'], cwd: '/', kind: 'shell' }] }],
    ...over,
  };
}

const write = (file: string, data: string | Buffer, mode = 0o600) => {
  writeFileSync(file, data, { mode });
  chmodSync(file, mode);
};

/** Refused, with a message naming the file, and moved aside so the next start is clean. */
function assertKeptAside(r: ReturnType<typeof readSnapshot>, file: string, why: RegExp) {
  assert.equal(r.kind, 'bad', JSON.stringify(r).slice(0, 300));
  if (r.kind !== 'bad') return;
  assert.match(r.message, why);
  assert.match(r.message, /starting fresh/);
  assert.ok(r.keptAs && existsSync(r.keptAs), 'kept aside');
  assert.ok(!existsSync(file), 'the snapshot path is free again');
  assert.equal(readSnapshot({ stateDir: join(file, '..', '..'), session: 'default' }).kind, 'none');
}

const ctx: PlanContext = { shell: ['/bin/sh'], relaunch: [], isDir: (p) => existsSync(p) && statSync(p).isDirectory(), fallbackCwd: '/' };

test('a valid snapshot reads back', (t) => {
  const w = world(t);
  write(w.file, JSON.stringify(good()));
  assert.equal(readSnapshot(w.paths).kind, 'ok');
});

test('too big: refused by its size, before reading it', (t) => {
  const w = world(t);
  write(w.file, '{}');
  truncateSync(w.file, 65 * 1024 * 1024);
  assertKeptAside(readSnapshot(w.paths), w.file, /too big/);
});

test('truncated JSON and random bytes: refused as corrupt', (t) => {
  const w = world(t);
  const text = JSON.stringify(good());
  write(w.file, text.slice(0, text.length / 2));
  assertKeptAside(readSnapshot(w.paths), w.file, /not valid JSON/);
  write(w.file, Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 256)));
  assertKeptAside(readSnapshot(w.paths), w.file, /not valid JSON/);
  write(w.file, '');
  assertKeptAside(readSnapshot(w.paths), w.file, /not valid JSON/);
});

test('wrong version, wrong session, wrong shape: refused with what is wrong', (t) => {
  const w = world(t);
  write(w.file, JSON.stringify({ ...good(), version: 99 }));
  assertKeptAside(readSnapshot(w.paths), w.file, /version 99/);
  write(w.file, JSON.stringify(good({ session: 'other' })));
  assertKeptAside(readSnapshot(w.paths), w.file, /session "other"/);
  write(w.file, JSON.stringify({ ...good(), windows: 'many' }));
  assertKeptAside(readSnapshot(w.paths), w.file, /does not match/);
  write(w.file, JSON.stringify(null));
  assertKeptAside(readSnapshot(w.paths), w.file, /version null/);
});

test('deeply nested: refused without a stack overflow', (t) => {
  const w = world(t);
  const depth = 200_000;
  write(w.file, `{"version":1,"windows":[${'['.repeat(depth)}${']'.repeat(depth)}]}`);
  assertKeptAside(readSnapshot(w.paths), w.file, /nested too deeply/);
  // A layout 100 splits deep is within JSON depth limits only if the tree is legal; this one is not.
  let layout: unknown = { kind: 'leaf', pane: 'w1:p1' };
  for (let i = 0; i < 100; i++) layout = { kind: 'split', axis: 'row', ratio: 0.5, a: layout, b: { kind: 'leaf', pane: `w1:p${i + 2}` } };
  write(w.file, JSON.stringify({ ...good(), windows: [{ ...good().windows[0], layout }] }));
  assertKeptAside(readSnapshot(w.paths), w.file, /layout and panes disagree/);
});

test('a session id that could read as a flag or run code: refused', (t) => {
  const w = world(t);
  for (const sessionId of ['--dangerously-skip-permissions', '$(touch /tmp/x)', 'a b', 'x'.repeat(300)]) {
    const s = good();
    s.windows[0].panes[0] = { ...s.windows[0].panes[0], kind: 'agent', foreground: ['claude'], agent: { name: 'claude', sessionId } };
    write(w.file, JSON.stringify(s));
    assertKeptAside(readSnapshot(w.paths), w.file, /does not match/);
  }
});

test('another user\'s file, or one others can write: refused; one others can read: fixed to 0600', (t) => {
  const w = world(t);
  write(w.file, JSON.stringify(good()), 0o666);
  assertKeptAside(readSnapshot(w.paths), w.file, /writable by other users/);
  write(w.file, JSON.stringify(good()), 0o644);
  const r = readSnapshot(w.paths);
  assert.equal(r.kind, 'ok');
  assert.match(r.kind === 'ok' ? r.notes.join() : '', /fixed to 600/);
  assert.equal(statSync(w.file).mode & 0o777, 0o600);
  if (process.getuid?.() === 0) {
    chownSync(w.file, 4242, 4242);
    assertKeptAside(readSnapshot(w.paths), w.file, /another user \(uid 4242\)/);
  } else {
    t.diagnostic('not root: the foreign-owner case needs chown');
  }
});

test('a symlink at the snapshot path: refused, the link moved aside, its target untouched', (t) => {
  const w = world(t);
  const target = join(w.root, 'elsewhere.json');
  const text = JSON.stringify(good());
  write(target, text);
  symlinkSync(target, w.file);
  assertKeptAside(readSnapshot(w.paths), w.file, /symlink/);
  assert.equal(readFileSync(target, 'utf8'), text);
  // A directory there is refused too.
  mkdirSync(w.file);
  const r = readSnapshot(w.paths);
  assert.equal(r.kind, 'bad');
});

test('a history gzip bomb or garbage: that pane comes back without history, the rest is restored', async (t) => {
  const w = world(t);
  const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x41)).toString('base64');
  const s = good();
  s.windows[0].panes[0].history = bomb;
  write(w.file, JSON.stringify(s));
  const r = await loadSnapshot(w.paths);
  assert.ok(r.loaded);
  assert.equal(r.loaded.histories.size, 0);
  assert.match(r.loaded.notes.join(), /history could not be read/);
  s.windows[0].panes[0].history = 'AAAA';
  write(w.file, JSON.stringify(s));
  assert.equal((await loadSnapshot(w.paths)).loaded?.histories.size, 0);
});

test('a pane whose cwd no longer exists opens in the session\'s directory and says so', () => {
  const s = good({ cwd: '/' });
  s.windows[0].panes[0].cwd = '/nonexistent/gone/away';
  const plan = planRestore(s, ctx);
  assert.equal(plan.action.windows[0].panes[0].cwd, '/');
  assert.match(plan.panes.get('w1:p1')!.note, /\/nonexistent\/gone\/away is gone; opened in \//);
});

test('control characters in names and commands never reach the screen raw; nothing unlisted runs', () => {
  const s = good();
  s.windows[0].name = 'evil\x1b]0;pwned\x07name';
  s.windows[0].panes[0] = { id: 'w1:p1', name: 'p\x1b[2J', command: ['/bin/sh'], cwd: '/', kind: 'program', foreground: ['touch', '/tmp/pwned\x1b[31m'], inShell: true };
  const plan = planRestore(s, ctx);
  const w = plan.action.windows[0];
  assert.doesNotMatch(w.name ?? '', /[\x00-\x1f]/);
  assert.doesNotMatch(w.panes[0].name ?? '', /[\x00-\x1f]/);
  const p = plan.panes.get('w1:p1')!;
  assert.equal(p.typed, undefined, 'a program not in [session] relaunch is not run');
  assert.doesNotMatch(p.note, /[\x00-\x1f]/);
  assert.deepEqual(w.panes[0].command, ['/bin/sh'], 'every pane starts as the user\'s shell, never the snapshot\'s command');
});

test('agents: only the resume table decides the program; unknown agents and odd flags are not replayed', () => {
  const s = good();
  s.windows[0].layout = { kind: 'split', axis: 'row', ratio: 0.5, a: { kind: 'leaf', pane: 'w1:p1' }, b: { kind: 'leaf', pane: 'w1:p2' } };
  s.windows[0].panes = [
    { id: 'w1:p1', command: ['/bin/sh'], cwd: '/', kind: 'agent', inShell: true, foreground: ['/tmp/evil/claude', '--model', 'x; touch /tmp/pwned', '--evil', '$(id)', 'a prompt'], agent: { name: 'claude', sessionId: 'abc-123' } },
    { id: 'w1:p2', command: ['/bin/sh'], cwd: '/', kind: 'agent', inShell: true, foreground: ['/tmp/evil'], agent: { name: 'evil' } },
  ];
  const plan = planRestore(s, ctx);
  const typed = plan.panes.get('w1:p1')!.typed!;
  const words = spawnSync('/bin/sh', ['-c', `for a in ${typed}; do printf '%s\\n' "$a"; done`], { encoding: 'utf8' }).stdout.trimEnd().split('\n');
  assert.deepEqual(words, ['claude', '--model', 'x; touch /tmp/pwned', '--resume', 'abc-123'], 'the program is the bare agent name; a value stays one word');
  assert.equal(shellQuote(['claude', '--model', 'x; touch /tmp/pwned', '--resume', 'abc-123']), typed);
  assert.match(plan.panes.get('w1:p1')!.note, /not replayed: --evil \$\(id\) a prompt/);
  assert.equal(plan.panes.get('w1:p2')!.typed, undefined);
  assert.match(plan.panes.get('w1:p2')!.note, /does not know how to resume/);
});

test('relaunch: exact command lines from the list only', () => {
  const s = good();
  s.windows[0].panes[0] = { id: 'w1:p1', command: ['/bin/sh'], cwd: '/', kind: 'program', foreground: ['/usr/bin/htop', '-d', '5'], inShell: true };
  assert.equal(planRestore(s, { ...ctx, relaunch: ['htop'] }).panes.get('w1:p1')!.typed, undefined);
  // Recorded at a path: relaunched only when PATH finds that file for the name, and typed by name (test/restore/relaunch.test.ts).
  assert.equal(planRestore(s, { ...ctx, relaunch: ['htop -d 5'] }).panes.get('w1:p1')!.typed, undefined);
  assert.equal(planRestore(s, { ...ctx, relaunch: ['htop -d 5'], onPath: (n, p) => p === `/usr/bin/${n}` }).panes.get('w1:p1')!.typed, 'htop -d 5');
  s.windows[0].panes[0].foreground = ['node', '/usr/lib/node_modules/npm/bin/npm-cli.js', 'run', 'dev'];
  assert.equal(planRestore(s, { ...ctx, relaunch: ['npm run dev'] }).panes.get('w1:p1')!.typed, undefined);
  s.windows[0].panes[0].foreground = ['npm', 'run', 'dev'];
  assert.equal(planRestore(s, { ...ctx, relaunch: ['npm run dev'] }).panes.get('w1:p1')!.typed, 'npm run dev');
  assert.equal(planRestore(s, { ...ctx, relaunch: ['npm'] }).panes.get('w1:p1')!.typed, undefined);
});

test('no temp files are left behind by refusals', (t) => {
  const w = world(t);
  write(w.file, 'garbage');
  readSnapshot(w.paths);
  assert.deepEqual(readdirSync(snapshotDir(w.paths)).filter((n) => n.includes('.tmp-')), []);
});
