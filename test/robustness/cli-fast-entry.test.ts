// The CLI's fast entry (dist/cli/main.cjs, scripts/bundle-cli.mjs): a busy command loads one file and no chunk, others load their ES entry, errors keep their exit codes across the two bundles, and the code cache is written once and used.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeModuleRecorder } from '../support/module-recorder.js';
import { BIN, REPO } from '../support/temp-env.js';

const FAST = existsSync(join(REPO, 'dist', 'cli', 'main.cjs'));

async function run(args: string[], env: Record<string, string> = {}, home?: string): Promise<{ code: number | null; stdout: string; stderr: string; mods: string[] }> {
  const dir = home ?? mkdtempSync(join(tmpdir(), 'cst-cli-'));
  const log = join(dir, `mods-${Math.random().toString(36).slice(2)}.txt`);
  const recorder = writeModuleRecorder(dir);
  try {
    const c = spawn(process.execPath, ['--import', recorder, BIN, ...args], { cwd: dir, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, MODLOG: log, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    c.stdout.on('data', (d) => (stdout += d));
    c.stderr.on('data', (d) => (stderr += d));
    const code: number | null = await new Promise((r) => c.on('exit', (x) => r(x)));
    const mods = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').filter(Boolean) : [];
    return { code, stdout, stderr, mods: mods.filter((m) => m.startsWith(`file://${REPO}`)).map((m) => m.slice(`file://${REPO}`.length)) };
  } finally {
    if (!home) rmSync(dir, { recursive: true, force: true });
  }
}

test('pane list, ls, herd list, pane send: bin/castellan.js and dist/cli/main.cjs only, no chunk, no zod', { skip: !FAST && 'dist/cli/main.cjs not built (no esbuild)' }, async () => {
  for (const args of [['pane', 'list'], ['ls'], ['herd', 'list'], ['pane', 'send', '--pane', 'w1:p1', 'x']]) {
    const r = await run(args, { CASTELLAN_CLI_CODE_CACHE: '0' });
    assert.ok(r.code === 3 || r.code === 1, `${args.join(' ')}: exit ${r.code} ${r.stderr}`);
    assert.deepEqual([...new Set(r.mods)], ['bin/castellan.js', 'dist/cli/main.cjs'], `${args.join(' ')} loaded ${r.mods.join(' ')}`);
  }
});

test('a command main.cjs does not carry loads its ES entry; usage errors and "no server" keep exit 2 and 3 across the two bundles', { skip: !FAST && 'dist/cli/main.cjs not built (no esbuild)' }, async () => {
  // UsageError thrown by the ES command's own copy of the class, judged by main.cjs.
  const bad = await run(['pane', 'break', '--pane', 'nonsense']);
  assert.equal(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, /not a pane id/);
  assert.ok(bad.mods.includes('dist/bundle/lazy-cli-commands-pane-break.js'), bad.mods.join(' '));
  // NotRunningError thrown by main.cjs's client, judged by the ES command (kill-session -t: tmux's words).
  const none = await run(['kill-session', '-t', 'nosuch']);
  assert.equal(none.code, 3, none.stderr);
  assert.match(none.stderr, /can't find session: nosuch/);
  const help = await run(['--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /usage: castellan/);
});

test('the code cache: written by the first call into the private state dir, used by the next; a tampered cache is not trusted', { skip: !FAST && 'dist/cli/main.cjs not built (no esbuild)' }, async (t) => {
  const home = mkdtempSync(join(tmpdir(), 'cst-cli-'));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  const first = await run(['pane', 'list'], {}, home);
  assert.equal(first.code, 3, first.stderr);
  const state = join(home, '.local', 'state', 'castellan');
  const caches = readdirSync(state).filter((f) => f.startsWith('cli-main-') && f.endsWith('.v8cache'));
  assert.equal(caches.length, 1, readdirSync(state).join(' '));
  const again = await run(['pane', 'list'], {}, home);
  assert.equal(again.code, 3);
  assert.equal(again.stderr, first.stderr);
  // Garbage after a valid key line: V8 rejects it, the call still works and rewrites it.
  const file = join(state, caches[0]);
  const buf = readFileSync(file);
  const key = buf.subarray(0, buf.indexOf(10) + 1);
  const { writeFileSync } = await import('node:fs');
  writeFileSync(file, Buffer.concat([key, Buffer.from('not a code cache at all')]), { mode: 0o600 });
  const tampered = await run(['pane', 'list'], {}, home);
  assert.equal(tampered.code, 3, tampered.stderr);
  assert.equal(tampered.stderr, first.stderr);
  assert.ok(readFileSync(file).length > key.length + 100, 'the rejected cache was rewritten');
});
