// An idle server or client holds only what it uses: the server's graph has no client, SDK or chooser code, the client loads React only after NODE_ENV is set, its app only after its young generation is capped and Ink only for a pane under 2x2 (never for an overlay), the bundle keeps paths right, and the server's Node flags reach it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { writeModuleRecorder } from '../support/module-recorder.js';
import { nodeChildJson } from '../support/node-child.js';
import { BIN, REPO, tempEnvFor } from '../support/temp-env.js';
import { startAttached } from '../support/term-harness.js';


/** Runs node with the recorder on `code` (an ES module body) and returns the modules it loaded. */
async function modulesOf(code: string): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'cst-fp-'));
  const log = join(dir, 'mods.txt');
  const recorder = writeModuleRecorder(dir);
  try {
    const c = spawn(process.execPath, ['--import', recorder, '--input-type=module', '-e', code], { cwd: dir, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, MODLOG: log }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    c.stderr.on('data', (d) => (stderr += d));
    const exit: number | null = await new Promise((r) => c.on('exit', (x) => r(x)));
    assert.equal(exit, 0, stderr);
    return readFileSync(log, 'utf8').trim().split('\n').filter(Boolean);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const dist = (rel: string) => JSON.stringify(pathToFileURL(join(REPO, 'dist', rel)).href);

/** What a plain server never needs at start: the client (Ink, React, yoga), the SDKs, ACP, the chooser, execa, yaml, string-width (copy mode's, loaded on entry: its Intl.Segmenter faults in ICU data). */
const NOT_IN_SERVER = /\/node_modules\/(ink|react|react-reconciler|yoga-layout|es-toolkit|@modelcontextprotocol|@agentclientprotocol|execa|yaml|string-width)\/|\/dist\/(client|acp)\//;

test("the server's module graph (what the bundle splits along) holds no client, SDK, ACP or chooser code", async () => {
  const mods = await modulesOf(`await import(${dist('server/main.js')});`);
  assert.ok(mods.some((m) => m.endsWith('/dist/server/session.js')), 'the server loaded');
  assert.deepEqual(mods.filter((m) => NOT_IN_SERVER.test(m)), []);
});

test('the attach command loads no client code (React) until it runs, so React picks its production build', async () => {
  // React and react-reconciler choose development or production from NODE_ENV when first evaluated; the command
  // sets NODE_ENV=production as it runs, which is too late if importing the command already loaded them.
  const mods = await modulesOf(`await import(${dist('cli/commands/attach.js')});`);
  assert.deepEqual(mods.filter((m) => /\/node_modules\/(ink|react|react-reconciler|scheduler|yoga-layout)\/|\/dist\/client\//.test(m)), []);
});

const BUNDLED = existsSync(join(REPO, 'dist', 'bundle'));

test('the bundled CLI: a server and the CLI load none of the client\'s chunks and finds its files from import.meta.url', { skip: !BUNDLED && 'dist/bundle not built (no esbuild)' }, async (t) => {
  assert.match(readFileSync(join(REPO, 'dist', 'cli', 'main.js'), 'utf8'), /^\/\/ castellan bundle/);
  const dir = mkdtempSync(join(tmpdir(), 'cst-fp-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const recorder = writeModuleRecorder(dir);
  const log = join(dir, 'mods.txt');
  // NODE_OPTIONS travels to the daemon's server, so its loads are recorded too.
  const e = tempEnvFor(t, { env: { NODE_OPTIONS: `--import ${recorder}`, MODLOG: log } });
  // version.ts reads ../package.json next to its own file: bundled, it must still find the package's.
  const v = await e.cli(['--version']);
  assert.equal(v.stdout.trim(), JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).version);
  // The server finds the bin and its reaper script (next to bin/) and the built-in themes (themes/).
  const start = await e.cli(['server', 'start', '--', 'sh']);
  assert.equal(start.code, 0, start.stderr + e.logTail());
  const theme = await e.cli(['theme', 'set', 'light']);
  assert.equal(theme.code, 0, theme.stderr);
  const chunks = [...new Set(readFileSync(log, 'utf8').split('\n').filter((m) => m.includes('/dist/bundle/')))];
  assert.ok(chunks.length > 0, 'the bundle ran');
  // The yoga-layout wasm (base64 of "\0asm") is the client's alone: no chunk the CLI or the server loaded carries it.
  for (const c of chunks) assert.ok(!readFileSync(new URL(c), 'utf8').includes('AGFzbQ'), `${c} carries the client's wasm`);
  const bytes = chunks.reduce((n, c) => n + statSync(new URL(c)).size, 0);
  assert.ok(bytes < 1_600_000, `the server and CLI loaded ${bytes} bytes of chunks`);
});

test("CASTELLAN_SERVER_NODE_FLAGS reaches the server's node (and an unknown flag does not)", async (t) => {
  const e = tempEnvFor(t, { env: { CASTELLAN_SERVER_NODE_FLAGS: '--max-semi-space-size=2 --inspect=0' } });
  const start = await e.cli(['server', 'start', '--', 'sh']);
  assert.equal(start.code, 0, start.stderr + e.logTail());
  const pid = await e.serverPid();
  assert.ok(pid);
  const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  assert.ok(argv.includes('--max-semi-space-size=2'), argv.join(' '));
  assert.ok(!argv.some((a) => a.startsWith('--inspect')), argv.join(' '));
});

test("by default the daemon caps the server's young generation (what is left 1 s after a flood), and an empty CASTELLAN_SERVER_NODE_FLAGS lifts it", async (t) => {
  const argvOf = async (env: Record<string, string>): Promise<string[]> => {
    const e = tempEnvFor(t, { env });
    const start = await e.cli(['server', 'start', '--', 'sh']);
    assert.equal(start.code, 0, start.stderr + e.logTail());
    const pid = await e.serverPid();
    assert.ok(pid);
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  };
  assert.ok((await argvOf({})).includes('--max-semi-space-size=4'));
  assert.ok(!(await argvOf({ CASTELLAN_SERVER_NODE_FLAGS: '' })).some((a) => a.startsWith('--max-semi-space-size')));
});

test("the client's young generation: capped from inside before the app loads, and the cap holds while objects survive", async () => {
  // attach.js itself loads no Ink or React: the app comes in only after attach() has capped the young generation.
  const mods = await modulesOf(`await import(${dist('client/attach.js')});`);
  assert.deepEqual(mods.filter((m) => /\/node_modules\/(ink|react|react-reconciler|yoga-layout)\/|\/dist\/client\/app\.js$/.test(m)), []);
  // What V8 does with the flag on this Node: without the cap, survivors grow the new space past 2 MB; with it, never.
  const young = async (env: Record<string, string>): Promise<number> => {
    const code = `const y = await import(${dist('client/young-generation.js')}); y.capYoungGeneration(); const keep = []; for (let i = 0; i < 300000; i++) keep.push({ i, s: 'x' + i }); process.stdout.write(String(y.youngGenerationBytes()));`;
    // It exits 0 with nothing on stderr: no "unrecognized flag" (or anything else) reaches the user's terminal.
    return nodeChildJson<number>(code, env);
  };
  const MB = 1024 * 1024;
  assert.ok((await young({ CASTELLAN_CLIENT_YOUNG_GEN: 'default' })) > 2 * MB, 'without the cap the new space grows');
  const capped = await young({});
  assert.ok(capped <= 2 * MB, `capped new space ${capped} bytes`);
});

/** Ink, React or yoga among the modules in a recorder's log: their files unbundled, the chunk carrying yoga's wasm bundled. */
const INK_FILES = /\/node_modules\/(ink|react|react-reconciler|scheduler|yoga-layout)\//;
const loadedInk = (mods: string[]): string[] => mods.filter((m) => INK_FILES.test(m) || (m.includes('/dist/bundle/') && readFileSync(new URL(m), 'utf8').includes('AGFzbQ')));

test('the client app loads no Ink, React or yoga: only the door to them does', async () => {
  const app = await modulesOf(`await import(${dist('client/app.js')});`);
  assert.ok(app.some((m) => m.endsWith('/dist/client/app.js')), 'the app loaded');
  assert.deepEqual(app.filter((m) => INK_FILES.test(m)), []);
  const door = await modulesOf(`const d = await import(${dist('client/ui/ink-door.js')}); await d.loadInk(); if (!d.inkLoaded()) throw d.inkFailed() ?? new Error('not loaded');`);
  assert.ok(door.some((m) => /\/node_modules\/yoga-layout\//.test(m)), 'the door loads Ink and yoga');
});

test("an attached client loads no Ink for a prompt, the help (keys typed as it opens keep their order), the agent picker or the chooser", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'cst-fp-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const log = join(dir, 'mods.txt');
  const e = tempEnvFor(t);
  // The server first, without the recorder: the log is the client's alone.
  assert.equal((await e.cli(['server', 'start'])).code, 0, e.logTail());
  const h = await startAttached(e, { cols: 100, rows: 30, timeoutMs: 20_000, env: { NODE_OPTIONS: `--import ${writeModuleRecorder(dir)}`, MODLOG: log } });
  const mods = () => readFileSync(log, 'utf8').split('\n').filter(Boolean);
  assert.ok(mods().some((m) => /\/dist\/(bundle|client)\//.test(m)), 'the recorder saw the client');
  // A prompt in the bar is drawn by hand.
  h.prefix(',');
  await h.waitForText('rename window', { message: 'the rename prompt' });
  h.write('\x1b');
  await h.waitForNoText('rename window', { message: 'Esc closes the prompt' });
  // In one write: the keys after ? reach the client in the same chunk and must land in the help's filter, in order.
  h.write('\x02?/split');
  await h.waitForText('castellan keys · filter: split', { message: 'the help, with the filter typed as it opened' });
  await h.waitForText('Split: new pane on the right', { message: 'the filtered list' });
  // Enter keeps the filter, q closes the help, and what follows goes to the shell again.
  h.write('\rqecho lazy-$((6*7))\r');
  await h.waitForText('lazy-42', { message: 'keys after the help closed reach the shell' });
  await h.waitForNoText('castellan keys');
  h.prefix('a');
  await h.waitForText('launch an agent in a new pane', { message: 'the agent picker' });
  h.write('\x1b');
  await h.waitForNoText('launch an agent', { message: 'Esc closes the picker' });
  h.prefix('w');
  await h.waitForText('choose a pane', { message: 'the chooser' });
  await h.waitForText('(attached)', { message: 'the chooser\'s tree' });
  h.write('q');
  await h.waitForNoText('choose a pane', { message: 'q closes the chooser' });
  h.prefix('?');
  await h.waitForText('castellan keys', { message: 'the help again' });
  h.write('q');
  await h.waitForNoText('castellan keys');
  assert.deepEqual(loadedInk(mods()), [], 'attached, with a prompt, the help, the picker and the chooser opened and closed: no Ink');
});

test("loading Ink through its door leaves Node's fetch stack (undici, http, tls, http2) unloaded, and fetch usable after", async () => {
  // yoga-layout's wasm loader fetch()es its inline data: URL whenever fetch is a function (src/client/ui/ink-door.ts).
  const run = (code: string) =>
    nodeChildJson<{ undici: boolean; http: boolean; fetch: string }>(
      `${code}; const l = process.moduleLoadList; process.stdout.write(JSON.stringify({ undici: l.includes('NativeModule internal/deps/undici/undici'), http: l.includes('NativeModule http'), fetch: typeof fetch }));`,
      { NODE_ENV: 'production' },
    );
  const guarded = await run(`const d = await import(${dist('client/ui/ink-door.js')}); await d.loadInk(); if (!d.inkLoaded()) throw d.inkFailed() ?? new Error('Ink not loaded')`);
  assert.deepEqual(guarded, { undici: false, http: false, fetch: 'function' });
  // The control: imported plainly, the same Ink does load them (when yoga stops doing so, the door's guard can go).
  const plain = await run(`await import(${dist('client/ui/ink-chrome.js')})`);
  assert.equal(plain.undici, true, "yoga no longer fetches its wasm: ink-door.ts's fetch guard is not needed any more");
});
