// hook.event's params are outside input: too big, too deep, binary, the wrong agent, the wrong pane, a pane the caller
// does not run in, stale seqs and a flood; each gets a clear refusal or a safe answer, and the server stays responsive.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { makeTempEnv, type TempEnv } from '../support/temp-env.js';
import { waitForPane } from '../support/api.js';
import { RpcClient, RpcError } from '../../src/platform/rpc-client.js';
import { HOOK_EVENT_MAX_DEPTH, HOOK_EVENT_PAYLOAD_MAX } from '../../src/api/methods/hook-event.js';
import { PAYLOAD_MAX_DEPTH } from '../../src/integrations/hook-input.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from '../support/temp-env.js';

describe('hook.event with hostile params', () => {
  let env: TempEnv;
  let api: RpcClient;
  let pane: string;
  let pid: number;
  let other: string;
  let otherPid: number;
  let seq = Date.now() * 1000;
  const call = (p: Record<string, unknown>) => api.request<Record<string, unknown>>('hook.event', { pane_id: pane, agent: 'pi', event: 'agent_start', payload: {}, seq: ++seq, pid, ...p }, 10_000);
  const code = async (p: Record<string, unknown>) => {
    try {
      await call(p);
      return 'ok';
    } catch (e) {
      return (e as RpcError).code;
    }
  };

  before(async () => {
    env = makeTempEnv();
    const r = await env.cli(['server', 'start']);
    assert.equal(r.code, 0, r.stderr);
    api = await RpcClient.connect(env.socket);
    const panes = await env.call<{ panes: Array<{ pane_id: string }> }>('pane.list', {});
    pane = panes.panes[0].pane_id;
    pid = (await waitForPane(env, pane, (x) => !!x.pid)).pid!;
    other = (await env.call<{ pane_id: string }>('pane.split', { focus: false })).pane_id;
    otherPid = (await waitForPane(env, other, (x) => !!x.pid)).pid!;
  });
  after(async () => {
    api.close();
    await env.cleanup();
  });

  test('the extension sends nothing bigger than the server takes (its PAYLOAD_MAX is HOOK_EVENT_PAYLOAD_MAX)', () => {
    const src = readFileSync(join(REPO, 'share/integrations/pi/castellan.ts'), 'utf8');
    const expr = /^const PAYLOAD_MAX = ([\d *]+);/m.exec(src)?.[1];
    assert.ok(expr, 'PAYLOAD_MAX in the extension');
    assert.equal(Function(`return ${expr}`)(), HOOK_EVENT_PAYLOAD_MAX);
    assert.equal(HOOK_EVENT_MAX_DEPTH, PAYLOAD_MAX_DEPTH, 'as deep as the spawned bridge takes');
  });

  test('a process that runs in the pane is heard', async () => {
    const r = await call({ event: 'agent_start' });
    assert.equal(r.action, 'reported');
    assert.equal(r.state, 'working');
  });

  test('a pane the caller does not run in is refused (not_allowed), and nothing is reported there', async () => {
    assert.equal(await code({ pid: process.pid }), 'not_allowed');
    assert.equal(await code({ pane_id: other, pid }), 'not_allowed');
    assert.equal(await code({ pid: otherPid }), 'not_allowed');
    const info = await env.call<{ agent: { state: string; source?: string } }>('pane.get', { pane_id: other });
    assert.notEqual(info.agent.source, 'hook');
  });

  test('a pane that does not exist, or is not a pane id', async () => {
    assert.equal(await code({ pane_id: 'w99:p99' }), 'pane_not_found');
    assert.equal(await code({ pane_id: '../../etc' }), 'invalid_params');
    assert.equal(await code({ pane_id: 'w1:p1'.repeat(1000) }), 'invalid_params');
  });

  test('the wrong agent, or no agent', async () => {
    for (const agent of ['claude', 'codex', 'PI', '', 'pi\u0000', 7]) assert.equal(await code({ agent }), 'invalid_params', String(agent));
    assert.equal(await code({ agent: undefined }), 'invalid_params');
  });

  test('too big and too deep payloads are refused, not cut', async () => {
    assert.equal(await code({ payload: { s: 'x'.repeat(HOOK_EVENT_PAYLOAD_MAX + 1) } }), 'invalid_params');
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 64; i++) deep = { d: deep };
    assert.equal(await code({ payload: deep }), 'invalid_params');
    assert.equal(await code({ payload: [1, 2] }), 'invalid_params');
    assert.equal(await code({ payload: 'agent_end' }), 'invalid_params');
  });

  test('binary in names and payloads: names are refused, payload text is carried safely', async () => {
    for (const event of ['agent_end\u0000', '\u001b[2J', 'x'.repeat(65), '', 'é']) assert.equal(await code({ event }), 'invalid_params', JSON.stringify(event));
    const r = await call({ event: 'agent_end', payload: { reason: '\u0000\u001b]0;pwned\u0007\ud800', messages: '\uffff' } });
    assert.equal(r.state, 'done');
    const u = await call({ event: 'no_such_event' });
    assert.equal(u.action, 'skipped');
  });

  test('extra keys, bad seqs, bad pids and envs are refused', async () => {
    assert.equal(await code({ extra: 1 }), 'invalid_params');
    for (const s of [-1, 1.5, '1', Number.MAX_SAFE_INTEGER + 2]) assert.equal(await code({ seq: s }), 'invalid_params', String(s));
    for (const p of [0, -5, 1.5, 2 ** 40, 'self']) assert.equal(await code({ pid: p }), 'invalid_params', String(p));
    assert.equal(await code({ env: { PATH: '/bin' } }), 'invalid_params');
    assert.equal(await code({ env: { HOME: 'x'.repeat(5000) } }), 'invalid_params');
    assert.equal(await code({ cwd: 'relative' }), 'invalid_params');
  });

  test('an older seq is dropped: a late report never overwrites a newer one', async () => {
    const now = ++seq;
    await call({ event: 'agent_end', seq: now });
    const late = await api.request<Record<string, unknown>>('hook.event', { pane_id: pane, agent: 'pi', event: 'agent_start', payload: {}, seq: now - 1000, pid }, 10_000);
    assert.match(String(late.reason), /stale seq/);
    const info = await env.call<{ agent: { state: string } }>('pane.get', { pane_id: pane });
    assert.equal(info.agent.state, 'done');
  });

  test('a flood of 3000 pipelined calls: all answered, the last one decides, the server still answers a ping at once', async () => {
    const calls: Array<Promise<unknown>> = [];
    for (let i = 0; i < 3000; i++) calls.push(call({ event: i % 2 ? 'agent_end' : 'turn_start' }).catch((e) => e));
    calls.push(call({ event: 'agent_start' }));
    const results = await Promise.all(calls);
    assert.equal(results.filter((r) => r instanceof Error).length, 0);
    const t0 = performance.now();
    await env.call('ping', {}, 5000);
    assert.ok(performance.now() - t0 < 2000, 'ping after the flood');
    const info = await env.call<{ agent: { state: string } }>('pane.get', { pane_id: pane });
    assert.equal(info.agent.state, 'working');
  });
});
