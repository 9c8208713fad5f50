// Governance events on a real server socket: events.emit, ui.ask, and `castellan exec` / `castellan run --pane new` against an in-process server.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { ApiClient } from '../../src/api/client.js';
import type { SessionApi } from '../../src/api/context.js';
import eventsEmit from '../../src/api/methods/events-emit.js';
import { METHOD_TABLE } from '../../src/api/methods/index.js';
import uiAsk from '../../src/api/methods/ui-ask.js';
import { RpcError } from '../../src/api/client.js';
import execCmd from '../../src/cli/commands/exec.js';
import runCmd from '../../src/cli/commands/run.js';
import { ServerLink } from '../../src/hooks/emit.js';
import { governPreToolUse } from '../../src/hooks/pipeline.js';
import { trustFile } from '../../src/config/trust.js';
import { startInProcess, waitFor, type InProcessServer } from '../api/in-process.js';
import { fakeCtx, hookToml, makeWorld, type World } from './helpers.js';

let srv: InProcessServer;
let w: World;
let api: ApiClient;
const seen: Array<Record<string, unknown>> = [];

before(async () => {
  srv = await startInProcess();
  api = await srv.connect();
  const sub = api.nextId();
  api.onMessage((m) => {
    if (m.id === sub && m.event) seen.push(m.event as Record<string, unknown>);
  });
  await api.request('events.subscribe', {}, { id: sub, timeoutMs: 5000 });
  w = makeWorld();
  w.env.CASTELLAN_SOCKET = srv.paths.socket;
  w.write(
    'proj/castellan.toml',
    [
      hookToml({ event: 'PreToolUse', command: 'exit 0', matcher: 'shell', id: 'pre-ok' }),
      hookToml({ event: 'session_start', command: 'cat > /dev/null', id: 'start-ok' }),
      hookToml({ event: 'SessionEnd', command: 'cat > /dev/null', id: 'end-ok' }),
      '[governance.plan_verify]\nenabled = true\n',
    ].join('\n'),
  );
  trustFile(w.paths.trustFile, join(w.project, 'castellan.toml'));
});
after(async () => {
  await srv.stop();
  w.cleanup();
});

const ofType = (t: string) => seen.filter((e) => e.type === t);

describe('socket methods', () => {
  test('both are in the method table', () => {
    assert.ok(METHOD_TABLE.get('events.emit'));
    assert.ok(METHOD_TABLE.get('ui.ask'));
  });

  test('events.emit publishes governance events to subscribers, stamped', async () => {
    await api.request('events.emit', { type: 'governance_test', pane: 'w1:p1', note: 'x\u001b[31my' }, { timeoutMs: 2000 });
    const e = (await waitFor(() => ofType('governance_test')[0]))!;
    assert.equal(e.pane, 'w1:p1');
    assert.equal(e.note, 'x[31my', 'control characters stripped');
    assert.equal(typeof e.seq, 'number');
  });

  test('events.emit refuses other event types', async () => {
    await assert.rejects(api.request('events.emit', { type: 'pane_exited', pane: 'w1:p1' }, { timeoutMs: 2000 }), (e: unknown) => e instanceof RpcError && e.code === 'invalid_params');
  });

  test('ui.ask with no UI attached denies', async () => {
    const r = await api.request('ui.ask', { title: 'Allow?', message: 'm', timeout_ms: 1000 }, { timeoutMs: 3000 });
    assert.deepEqual(r, { answer: 'deny', reason: 'no castellan UI attached' });
    const link = new ServerLink(srv.paths.socket);
    const viaLink = await link.ask({ title: 't', message: 'm', timeoutMs: 500 });
    link.close();
    assert.deepEqual(viaLink, { answer: 'deny', reason: 'no castellan UI attached' });
    const noServer = await new ServerLink(join(w.root, 'none.sock')).ask({ title: 't', message: 'm', timeoutMs: 500 });
    assert.deepEqual(noServer, { answer: 'deny', reason: 'no castellan UI attached' });
  });

  test('ui.ask calls session.ask when a client is attached; a timeout denies', async () => {
    const asked: unknown[] = [];
    const fake = (ask: (q: unknown) => Promise<'allow' | 'deny'>) =>
      ({ state: () => ({ clients: { c1: {} } }), ask: (q: unknown) => (asked.push(q), ask(q)) }) as unknown as SessionApi;
    const ctx = (session: SessionApi) => ({ session, conn: {} as never });
    const params = uiAsk.params.parse({ title: 'Allow shell?', message: 'agent wants\u0007 ls', timeout_ms: 200, pane_id: 'w1:p1' });
    assert.deepEqual(await uiAsk.handler(ctx(fake(async () => 'allow')), params), { answer: 'allow', reason: 'allowed in the castellan UI' });
    assert.deepEqual(asked[0], { title: 'Allow shell?', message: 'agent wants ls', timeoutMs: 200, paneId: 'w1:p1' });
    assert.equal((await uiAsk.handler(ctx(fake(async () => 'deny')), params)).answer, 'deny');
    const slow = await uiAsk.handler(ctx(fake(() => new Promise(() => {}))), params);
    assert.deepEqual(slow, { answer: 'deny', reason: 'no answer within 200 ms' });
    const noClients = { state: () => ({ clients: {} }), ask: async () => 'allow' } as unknown as SessionApi;
    assert.equal((await uiAsk.handler(ctx(noClients), params)).answer, 'deny');
    assert.ok(eventsEmit.params.safeParse({ type: 'PlanVerifyDenied' }).success);
  });
});

describe('castellan exec against a live server', () => {
  test('allowed call: hook_run, PlanVerifyPassed and the decision reach subscribers and --json', async () => {
    const planFile = w.write('plan.yaml', 'workflow_plan:\n  id: demo\n  steps:\n    - id: hello\n      tool: shell\n      argv: [sh, -c, "exit 0"]\n');
    const ctx = fakeCtx(w, { env: { CASTELLAN_PANE_ID: 'w1:p1' } });
    const code = await execCmd.run(ctx, { values: { plan: planFile, json: true, 'agent-id': 'bot' }, positionals: [], rest: ['sh', '-c', 'exit 0'] });
    assert.equal(code, 0, ctx.stderr.join('\n'));
    const printed = ctx.stdout.map((l) => JSON.parse(l));
    assert.deepEqual(
      printed.map((e) => e.type),
      ['hook_run', 'PlanVerifyPassed', 'governance_decision', 'governance_tool_result'],
    );
    const passed = (await waitFor(() => ofType('PlanVerifyPassed').find((e) => e.plan_id === 'demo')))!;
    assert.deepEqual([passed.pane, passed.agent_id, passed.step], ['w1:p1', 'bot', 'hello']);
    await waitFor(() => ofType('hook_run').find((e) => e.hook_id === 'pre-ok' && e.outcome === 'ok' && e.pane === 'w1:p1'));
    await waitFor(() => ofType('governance_decision').find((e) => e.decision === 'allow' && e.agent_id === 'bot'));
  });

  test('denied call: exit 77, reason on stderr, PlanVerifyDenied on the socket', async () => {
    const ctx = fakeCtx(w);
    const code = await execCmd.run(ctx, { values: { 'agent-id': 'bot2' }, positionals: [], rest: ['sh', '-c', 'echo should-not-run'] });
    assert.equal(code, 77);
    assert.match(ctx.stderr.join('\n'), /denied: plan verify: no workflow_plan/);
    const denied = (await waitFor(() => ofType('PlanVerifyDenied').find((e) => e.agent_id === 'bot2')))!;
    assert.equal(denied.kind, 'missing');
  });

  test('governPreToolUse with the default link reaches the server too', async () => {
    await governPreToolUse({ tool: 'grep', argv: ['grep'], agentId: 'bridge', cwd: w.project }, { env: w.env });
    await waitFor(() => ofType('governance_decision').find((e) => e.agent_id === 'bridge'));
  });
});

describe('castellan run --pane new', () => {
  test('SessionStart, a new pane running the agent, SessionEnd with its status; exits with its code', async () => {
    const ctx = fakeCtx(w);
    const code = await runCmd.run(ctx, { values: { pane: 'new', goal: 'g-pane', plugin: 'fake-agent', json: true }, positionals: [], rest: ['sh', '-c', 'exit 5'] });
    assert.equal(code, 5, ctx.stderr.join('\n'));
    const printed = ctx.stdout.map((l) => JSON.parse(l));
    const end = printed.find((e) => e.type === 'governance_session' && e.phase === 'end');
    assert.deepEqual([end?.status, end?.exit_code, end?.goal_id], ['failed', 5, 'g-pane']);
    assert.match(String(end?.pane), /^w\d+:p\d+$/);
    await waitFor(() => ofType('hook_run').find((e) => e.hook_id === 'end-ok' && e.goal_id === 'g-pane'));
  });
});
