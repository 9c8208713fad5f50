// The hook bridge runs on every tool call of every agent: its entry must load the bridge and governance, never the CLI, the UI, the server or an SDK.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeModuleRecorder } from '../support/module-recorder.js';
import { BIN, REPO } from '../support/temp-env.js';

/** Modules a tool call must never pay for. */
const HEAVY = /\/node_modules\/(ink|react|react-reconciler|yoga-layout|@xterm|@lydell|koffi|@koromix|@modelcontextprotocol|@agentclientprotocol|yaml|execa|es-toolkit)\/|\/dist\/(cli|client|server|api\/methods|acp|restore|detect)\//;


async function loaded(args: string[], env: Record<string, string>, stdin: string): Promise<{ code: number | null; stdout: string; mods: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'cst-hook-'));
  const log = join(dir, 'mods.txt');
  const recorder = writeModuleRecorder(dir);
  try {
    const c = spawn(process.execPath, ['--import', recorder, ...args], { cwd: dir, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, MODLOG: log, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    c.stdout.on('data', (d) => (stdout += d));
    c.stderr.on('data', (d) => (stderr += d));
    c.stdin.end(stdin);
    const code: number | null = await new Promise((r) => c.on('exit', (x) => r(x)));
    const mods = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').filter(Boolean) : [];
    if (code !== 0 && code !== 2) throw new Error(`exit ${code}: ${stderr}`);
    return { code, stdout, mods };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const PANE = { CASTELLAN_ENV: '1', CASTELLAN_PANE_ID: 'w1:p1', CASTELLAN_SOCKET: '/nonexistent/castellan.sock' };
const PRE = JSON.stringify({ session_id: 's', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls' }, cwd: '/' });
const ours = (mods: string[]) => mods.filter((m) => m.startsWith(`file://${REPO}`) && !m.includes('/node_modules/'));

const BUNDLED = existsSync(join(REPO, 'dist', 'hook', 'hook-main.cjs'));
const rel = (mods: string[]) => ours(mods).map((m) => m.slice(`file://${REPO}`.length));

test('castellan hook claude PreToolUse (bundled): loads bin/castellan.js and dist/hook/ only, nothing heavy', { skip: !BUNDLED && 'dist/hook not built (no esbuild)' }, async () => {
  const r = await loaded([BIN, 'hook', 'claude', 'PreToolUse'], PANE, PRE);
  assert.equal(r.code, 0);
  assert.deepEqual(r.mods.filter((m) => HEAVY.test(m)), []);
  const files = rel(r.mods);
  assert.ok(files.length >= 3 && files.every((f) => f === 'bin/castellan.js' || f.startsWith('dist/hook/')), files.join(' '));
});

test('a state-only event (bundled) loads the bridge chunk only: not the governance chunk with config and zod', { skip: !BUNDLED && 'dist/hook not built (no esbuild)' }, async () => {
  const pre = await loaded([BIN, 'hook', 'claude', 'PreToolUse'], PANE, PRE);
  const state = await loaded([BIN, 'hook', 'claude', 'Stop'], PANE, JSON.stringify({ session_id: 's' }));
  assert.equal(state.code, 0);
  const bytes = (files: string[]) => files.reduce((n, f) => n + statSync(join(REPO, f)).size, 0);
  const stateFiles = rel(state.mods);
  assert.ok(stateFiles.every((f) => f === 'bin/castellan.js' || f.startsWith('dist/hook/')), stateFiles.join(' '));
  // The governance chunk (config, zod, policy) is most of the bundle's bytes; a state-only event parses none of it.
  assert.ok(bytes(stateFiles) < 100_000, `a state-only event loaded ${bytes(stateFiles)} bytes: ${stateFiles.join(' ')}`);
  assert.ok(bytes(rel(pre.mods)) > 4 * bytes(stateFiles), 'a tool event loads the governance chunk');
});

test('the unbundled hook entry (the fallback) loads the bridge and governance only', async () => {
  const entry = join(REPO, 'dist', 'integrations', 'hook-main.js');
  const r = await loaded(['--input-type=module', '-e', `const m = await import(${JSON.stringify(entry)}); process.exitCode = await m.hookMain(['hook', 'claude', 'PreToolUse']);`], PANE, PRE);
  assert.equal(r.code, 0);
  assert.deepEqual(r.mods.filter((m) => HEAVY.test(m)), []);
  assert.ok(ours(r.mods).some((m) => m.includes('/dist/hooks/pipeline.js')), 'governance ran');
});

test('outside a pane the bin loads nothing but itself, reads no stdin and exits 0', async () => {
  const r = await loaded([BIN, 'hook', 'claude', 'PreToolUse'], {}, PRE);
  assert.equal(r.code, 0);
  assert.equal(r.stdout, '');
  // Once or twice: with loader hooks registered, the CommonJS bin is seen by the load hook and by _compile.
  assert.deepEqual([...new Set(ours(r.mods).map((m) => m.slice(`file://${REPO}`.length)))], ['bin/castellan.js']);
});

test('anything but AGENT EVENT [JSON] goes to the full CLI (help, flags, wrong word counts)', async () => {
  const help = await loaded([BIN, 'hook', '--help'], PANE, '');
  assert.equal(help.code, 0);
  assert.match(help.stdout, /usage: castellan hook AGENT EVENT/);
  // The CLI's fast entry (one CommonJS file, scripts/bundle-cli.mjs), or its ES entry when unbundled.
  // (The CLI's fast entry, dist/cli/main.cjs, may run through vm.Script with a code cache, which no loader hook sees: the command's own module shows it.)
  assert.ok(ours(help.mods).some((m) => /\/dist\/(cli\/main\.c?js|cli\/commands\/hook\.js|bundle\/lazy-cli-commands-hook\.js)$/.test(m)), ours(help.mods).join(' '));
  const short = await loaded([BIN, 'hook', 'claude'], PANE, '');
  assert.equal(short.code, 2);
});
