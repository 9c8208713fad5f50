// The real Gemini CLI from agent-lab behind `castellan acp` with `shell = "deny"`, trying every way into yolo mode: its flag,
// the flag hidden in a wrapper (Gemini then opens the session in yolo), and the editor's set_mode. Nothing denied may run.
// Opt-in, like gemini-lab.test.ts: CASTELLAN_LAB=1 node scripts/run-tests.mjs gemini-lab-yolo
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { loadSdk, type Acp } from '../../src/acp/sdk.js';
import { resolvePaths } from '../../src/platform/paths.js';
import { BIN, tempEnvFor } from '../support/temp-env.js';
import { waitFor } from '../support/wait-for.js';

const LAB = process.env.AGENT_LAB_DIR ?? '/work/shared/agent-lab';
const GEMINI = process.env.AGENT_LAB_GEMINI_BIN ?? join(process.env.AGENT_LAB_HOME ?? join(homedir(), '.cache', 'agent-lab'), 'installs', 'gemini', 'node_modules', '.bin', 'gemini');
const skip = !process.env.CASTELLAN_LAB ? 'set CASTELLAN_LAB=1 to run the real-Gemini ACP check' : !existsSync(GEMINI) ? `no Gemini CLI at ${GEMINI} (agent-lab/install.sh gemini)` : false;
const log = (s: string) => process.env.CASTELLAN_LAB_VERBOSE && process.stderr.write(`[gemini-yolo] ${s}\n`);

test('gemini --acp under shell = "deny": --yolo refused, yolo from a wrapper switched back, set_mode yolo refused, the command never runs', { skip, timeout: 240_000 }, async (t) => {
  const sdk = await loadSdk();
  const env = tempEnvFor(t);
  const work = join(env.root, 'work');
  mkdirSync(work, { recursive: true });
  const mockEnv = { ...env.env, MOCK_SLOW_SECONDS: '1' };
  const port = execFileSync(process.execPath, [join(LAB, 'mock', 'mockctl.js'), 'ensure', '--state', join(env.root, 'mock')], { env: mockEnv, encoding: 'utf8' }).trim();
  t.after(() => execFileSync(process.execPath, [join(LAB, 'mock', 'mockctl.js'), 'stop', '--state', join(env.root, 'mock')], { env: mockEnv, stdio: 'ignore' }));
  execFileSync(process.execPath, [join(LAB, 'lib', 'prepare.js'), 'gemini', env.home, work, port], { env: env.env });
  mkdirSync(join(env.home, '.castellan'), { recursive: true });
  writeFileSync(join(env.home, '.castellan', 'config.toml'), '[governance.permissions]\nshell = "deny"\n');
  const childEnv = { ...env.env, GEMINI_API_KEY: 'sk-test', GOOGLE_GEMINI_BASE_URL: `http://127.0.0.1:${port}`, GEMINI_CLI_NO_RELAUNCH: '1' };
  const start = (agent: string[]) => {
    const child = spawn(process.execPath, [BIN, 'acp', '--no-pane', '--', ...agent], { env: childEnv, cwd: work, stdio: ['pipe', 'pipe', 'pipe'] });
    t.after(() => child.kill('SIGKILL'));
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    return { child, exited, stderr: () => stderr };
  };

  // 1. The flag on castellan's command line: refused before Gemini starts.
  const flagged = start([GEMINI, '--acp', '--yolo']);
  flagged.child.stdin.end();
  assert.equal(await flagged.exited, 2);
  log(`--yolo: ${flagged.stderr().trim()}`);
  assert.match(flagged.stderr(), /refused to start gemini: --yolo makes it run tools without asking for permission, and castellan's policy gates shell/);

  // 2. The flag hidden in a wrapper castellan cannot read: Gemini opens its session in yolo, castellan switches it back.
  const p = start(['/bin/sh', '-c', 'exec "$0" --acp --yolo', GEMINI]);
  const updates: Acp.SessionNotification[] = [];
  const asked: unknown[] = [];
  const conn = sdk
    .client({ name: 'lab-editor' })
    .onRequest('session/request_permission', ({ params }) => {
      asked.push(params);
      return { outcome: { outcome: 'selected', optionId: params.options[0].optionId } };
    })
    .onNotification('session/update', ({ params }) => {
      log(`update: ${JSON.stringify(params.update).slice(0, 300)}`);
      updates.push(params);
    })
    .connect(sdk.ndJsonStream(Writable.toWeb(p.child.stdin) as WritableStream<Uint8Array>, Readable.toWeb(p.child.stdout) as ReadableStream<Uint8Array>));
  await conn.agent.request('initialize', { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false } });
  const s = await conn.agent.request('session/new', { cwd: work, mcpServers: [] });
  log(`session/new modes: ${JSON.stringify(s.modes)}`);
  assert.equal(s.modes?.currentModeId, 'default', 'castellan switched Gemini out of yolo before the editor got the session');
  const audit = () => readFileSync(resolvePaths({ env: env.env }).auditLog, 'utf8');
  assert.match(audit(), /"type":"acp_mode_changed","from":"yolo","to":"default"/);

  // 3. The editor asks for yolo: refused with the policy's reason.
  await assert.rejects(conn.agent.request('session/set_mode', { sessionId: s.sessionId, modeId: 'yolo' }), (e: Error) => {
    log(`set_mode yolo: ${e.message}`);
    return /castellan refused mode "yolo".*shell = "deny"/.test(e.message);
  });

  // 4. The shell call: Gemini asks, castellan denies, the editor is shown the call and why; the file never appears.
  const turn = await conn.agent.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'Please RUN: touch castellan-was-here' }] });
  log(`turn: ${JSON.stringify(turn)}`);
  const view = await waitFor(
    () => {
      const v = updates.map((u) => u.update as { sessionUpdate: string; toolCallId?: string; status?: string; content?: Array<{ content?: { text?: string } }> }).filter((u) => u.toolCallId);
      return v.some((u) => u.status === 'failed' && /castellan denied/.test(u.content?.[0]?.content?.text ?? '')) ? v : undefined;
    },
    { timeoutMs: 30_000, message: 'the refused call reached the editor', observe: () => JSON.stringify(updates.slice(-5)) },
  );
  assert.equal(view[0].sessionUpdate, 'tool_call', 'the editor was shown the call before its failed update');
  assert.ok(view.every((u) => u.status !== 'completed' && u.status !== 'in_progress'), JSON.stringify(view));
  assert.equal(asked.length, 0);
  assert.equal(existsSync(join(work, 'castellan-was-here')), false, 'the denied command did not run');
  assert.doesNotMatch(audit(), /acp_unpermitted_run/);
  p.child.stdin.end();
  assert.equal(await p.exited, 0, p.stderr().slice(-2000));
  conn.close();
});
