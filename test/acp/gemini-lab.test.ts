// End to end with the real Gemini CLI from agent-lab (`gemini --acp`, against the lab's mock model) behind `castellan acp`,
// driven by the ACP SDK's client as an editor would: a prompt, a shell call castellan denies with its reason (plan verify),
// the PlanVerify events, and the session in `castellan herd list`. Opt-in: CASTELLAN_LAB=1 node scripts/run-tests.mjs gemini-lab
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { EVENT_METHOD } from '../../src/acp/index.js';
import { loadSdk, type Acp } from '../../src/acp/sdk.js';
import { resolvePaths } from '../../src/platform/paths.js';
import { BIN, tempEnvFor } from '../support/temp-env.js';
import { waitFor } from '../support/wait-for.js';

const LAB = process.env.AGENT_LAB_DIR ?? '/work/shared/agent-lab';
const GEMINI = process.env.AGENT_LAB_GEMINI_BIN ?? join(process.env.AGENT_LAB_HOME ?? join(homedir(), '.cache', 'agent-lab'), 'installs', 'gemini', 'node_modules', '.bin', 'gemini');
const skip = !process.env.CASTELLAN_LAB ? 'set CASTELLAN_LAB=1 to run the real-Gemini ACP check' : !existsSync(GEMINI) ? `no Gemini CLI at ${GEMINI} (agent-lab/install.sh gemini)` : false;
const log = (s: string) => process.env.CASTELLAN_LAB_VERBOSE && process.stderr.write(`[gemini-lab] ${s}\n`);

test('gemini --acp behind castellan acp: a prompt, a shell call denied by plan verify with the reason, PlanVerifyDenied, herd list', { skip, timeout: 240_000 }, async (t) => {
  const sdk = await loadSdk();
  const env = tempEnvFor(t);
  const work = join(env.root, 'work');
  mkdirSync(work, { recursive: true });
  const mockEnv = { ...env.env, MOCK_SLOW_SECONDS: '1' };
  const port = execFileSync(process.execPath, [join(LAB, 'mock', 'mockctl.js'), 'ensure', '--state', join(env.root, 'mock')], { env: mockEnv, encoding: 'utf8' }).trim();
  t.after(() => execFileSync(process.execPath, [join(LAB, 'mock', 'mockctl.js'), 'stop', '--state', join(env.root, 'mock')], { env: mockEnv, stdio: 'ignore' }));
  execFileSync(process.execPath, [join(LAB, 'lib', 'prepare.js'), 'gemini', env.home, work, port], { env: env.env });
  // castellan: shell is high-risk and needs a workflow plan; the agent brings none, so plan verify denies it.
  mkdirSync(join(env.home, '.castellan'), { recursive: true });
  writeFileSync(join(env.home, '.castellan', 'config.toml'), '[governance.plan_verify]\nenabled = true\nhigh_risk_tools = ["shell"]\n');
  const srv = await env.cli(['server', 'start', '--cols', '160', '--rows', '45'], { cwd: work });
  assert.equal(srv.code, 0, srv.stderr);

  const childEnv = { ...env.env, GEMINI_API_KEY: 'sk-test', GOOGLE_GEMINI_BASE_URL: `http://127.0.0.1:${port}`, GEMINI_CLI_NO_RELAUNCH: '1' };
  const child = spawn(process.execPath, [BIN, 'acp', '--', GEMINI, '--acp'], { env: childEnv, cwd: work, stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
  t.after(() => child.kill('SIGKILL'));
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));

  const updates: Acp.SessionNotification[] = [];
  const events: Array<Record<string, unknown>> = [];
  const asked: Acp.RequestPermissionRequest[] = [];
  const editor = sdk
    .client({ name: 'lab-editor' })
    .onRequest('session/request_permission', ({ params }) => {
      asked.push(params);
      log(`permission asked: ${JSON.stringify(params.toolCall)}`);
      return { outcome: { outcome: 'selected', optionId: params.options[0].optionId } };
    })
    .onNotification('session/update', ({ params }) => {
      log(`update: ${JSON.stringify(params.update).slice(0, 300)}`);
      updates.push(params);
    })
    .onNotification(EVENT_METHOD, (x: unknown) => x as { event: Record<string, unknown> }, ({ params }) => {
      log(`castellan event: ${JSON.stringify(params.event).slice(0, 300)}`);
      events.push(params.event);
    });
  const conn = editor.connect(sdk.ndJsonStream(Writable.toWeb(child.stdin) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>));
  const init = await conn.agent.request('initialize', { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false } });
  log(`initialize: ${JSON.stringify(init)}`);
  const s = await conn.agent.request('session/new', { cwd: work, mcpServers: [] });
  log(`session: ${s.sessionId}`);
  const text = () =>
    updates
      .map((u) => u.update as { sessionUpdate: string; content?: { text?: string } })
      .filter((u) => u.sessionUpdate === 'agent_message_chunk')
      .map((u) => u.content?.text ?? '')
      .join('');

  // A plain prompt: the mock answers, the turn ends.
  const first = await conn.agent.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'Hello there' }] });
  assert.equal(first.stopReason, 'end_turn');
  assert.match(text(), /Hello from the mock model/);

  // A shell call: castellan denies it (plan verify) before the editor is asked; gemini is told "rejected".
  const second = await conn.agent.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'Please RUN: touch castellan-was-here' }] });
  log(`second turn: ${JSON.stringify(second)}`);
  const refused = await waitFor(
    () =>
      updates
        .map((u) => u.update as { sessionUpdate: string; status?: string; content?: Array<{ content?: { text?: string } }> })
        .find((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'failed' && /castellan denied/.test(u.content?.[0]?.content?.text ?? '')),
    { timeoutMs: 30_000, message: 'the refused tool call reached the editor', observe: () => JSON.stringify(updates.slice(-5)) },
  );
  const reason = refused.content?.[0]?.content?.text ?? '';
  log(`refusal: ${reason}`);
  assert.match(reason, /plan verify: no workflow_plan \(or tool_workflow\) given for a high-risk tool/);
  assert.equal(asked.length, 0, 'castellan answered the permission request itself');
  assert.ok(events.some((e) => e.type === 'PlanVerifyDenied' && e.tool === 'shell'), JSON.stringify(events.map((e) => e.type)));
  assert.ok(events.some((e) => e.type === 'governance_decision' && e.decision === 'deny' && e.source === 'plan_verify'));
  assert.equal(existsSync(join(work, 'castellan-was-here')), false, 'the denied command did not run');

  // The session in herd list, with its state.
  const herd = await env.cli(['herd', 'list', '--json']);
  log(`herd list: ${herd.stdout}`);
  const rows = JSON.parse(herd.stdout) as Array<{ pane_id: string; agent: string | null; state: string }>;
  const row = rows.find((r) => r.agent === 'gemini');
  assert.ok(row, herd.stdout);
  assert.equal(row.state, 'idle');

  child.stdin.end();
  assert.equal(await exited, 0, stderr.slice(-2000));
  // SessionEnd ran after the editor left (the audit log has it; the editor was gone).
  const audit = readFileSync(resolvePaths({ env: env.env }).auditLog, 'utf8');
  assert.match(audit, /"type":"governance_session","phase":"end","plugin":"gemini","status":"closed"/);
  conn.close();
  await env.cli(['server', 'stop']);
});
