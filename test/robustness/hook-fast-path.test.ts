// The bridge's hot path is one bundled CommonJS file: a state event, and a tool call the server decides, load
// bin/castellan.js and dist/hook/hook-main.cjs and nothing else of ours, and never start Node's ES module loader; only a
// call the server cannot decide loads the lazy governance build (ES modules).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, REPO, makeTempEnv, type TempEnv } from '../support/temp-env.js';

const BUNDLED = existsSync(join(REPO, 'dist', 'hook', 'hook-main.cjs'));
const skip = !BUNDLED && 'dist/hook not built (no esbuild)';

/** Records every CommonJS file compiled (by the loader, or by the bin's vm.Script) into $MODLOG, and at exit whether Node's ES module loader ran (a hook would start it). */
const RECORDER = `const { appendFileSync } = require('node:fs');
const M = require('node:module');
const compile = M.prototype._compile;
M.prototype._compile = function (c, f) { appendFileSync(process.env.MODLOG, 'file://' + f + '\\n'); return compile.call(this, c, f); };
// The bin compiles the bundle itself when it has a V8 code cache for it (vm.Script): recorded the same way.
const vm = require('node:vm');
vm.Script = class extends vm.Script { constructor(c, o) { super(c, o); appendFileSync(process.env.MODLOG, 'file://' + (o && o.filename) + '\\n'); } };
process.on('exit', () => { if (process.moduleLoadList.includes('NativeModule internal/modules/esm/module_job')) appendFileSync(process.env.MODLOG, 'esm-loader\\n'); });
`;

let recDir: string;
before(() => {
  recDir = mkdtempSync(join(tmpdir(), 'cst-hfp-'));
  writeFileSync(join(recDir, 'recorder.cjs'), RECORDER);
});
after(() => rmSync(recDir, { recursive: true, force: true }));

let runs = 0;
/** Runs the bin with the recorder; resolves with its stdout and our files it loaded (repo-relative). */
function loaded(args: string[], env: Record<string, string>, stdin: string, cwd: string): Promise<{ code: number | null; stdout: string; stderr: string; files: string[]; esm: boolean }> {
  const log = join(recDir, `mods-${++runs}.txt`);
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, ['--require', join(recDir, 'recorder.cjs'), BIN, ...args], { cwd, env: { ...env, MODLOG: log }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const killer = setTimeout(() => c.kill('SIGKILL'), 30_000);
    c.stdout.on('data', (d) => (stdout += d));
    c.stderr.on('data', (d) => (stderr += d));
    c.on('error', reject);
    c.stdin.end(stdin);
    c.on('exit', (code) => {
      clearTimeout(killer);
      const mods = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').filter(Boolean) : [];
      const files = mods.filter((m) => m.startsWith(`file://${REPO}`) && !m.includes('/node_modules/')).map((m) => m.slice(`file://${REPO}`.length));
      resolve({ code, stdout, stderr, files, esm: mods.includes('esm-loader') });
    });
  });
}

const HOT = ['bin/castellan.js', 'dist/hook/hook-main.cjs'];
const bash = (cwd: string, command = 'ls') => JSON.stringify({ session_id: 's', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command }, cwd });

describe('the hook bridge hot path', { skip }, () => {
  let env: TempEnv;
  let inPane: Record<string, string>;
  before(async () => {
    env = makeTempEnv();
    mkdirSync(join(env.home, '.castellan'), { recursive: true });
    writeFileSync(join(env.home, '.castellan', 'config.toml'), '[governance.permissions]\nshell = "deny"\n');
    const r = await env.cli(['server', 'start']);
    assert.equal(r.code, 0, r.stderr);
    inPane = { ...env.env, CASTELLAN_ENV: '1', CASTELLAN_PANE_ID: 'w1:p1', CASTELLAN_SOCKET: env.socket };
  });
  after(() => env.cleanup());

  test('a state event loads the one hot file and reports', async () => {
    const r = await loaded(['hook', 'claude', 'UserPromptSubmit'], inPane, JSON.stringify({ session_id: 's', prompt: 'hi' }), env.home);
    assert.deepEqual([r.code, r.stdout], [0, ''], r.stderr);
    assert.deepEqual(r.files, HOT);
    assert.equal(r.esm, false, 'the ES module loader started');
    const p = await env.call<{ agent: { state: string } }>('pane.get', { pane_id: 'w1:p1' });
    assert.equal(p.agent.state, 'working');
  });

  test('a tool call the server decides loads the one hot file too, and is denied by the policy', async () => {
    const r = await loaded(['hook', 'claude', 'PreToolUse'], inPane, bash(env.home), env.home);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).hookSpecificOutput.permissionDecision, 'deny');
    assert.deepEqual(r.files, HOT);
    assert.equal(r.esm, false, 'the ES module loader started');
  });

  test('without a server the bridge imports the lazy governance build (ES modules) and still denies', async () => {
    const r = await loaded(['hook', 'claude', 'PreToolUse'], { ...inPane, CASTELLAN_SOCKET: join(env.home, 'none.sock') }, bash(env.home), env.home);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).hookSpecificOutput.permissionDecision, 'deny');
    assert.deepEqual(r.files, HOT);
    assert.equal(r.esm, true, 'the lazy build is ES modules');
  });
});
