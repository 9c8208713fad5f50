// events.wait and agent-state rules over a real socket: state waits, timeouts, pane exit, seq, hook vs heuristics.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiClient } from '../../src/api/client.js';
import { RpcError } from '../../src/api/client.js';
import { startInProcess, waitFor, type InProcessServer } from './in-process.js';

async function errOf(p: Promise<unknown>): Promise<RpcError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof RpcError) return e;
    throw e;
  }
  throw new Error('expected an error');
}

const report = (api: ApiClient, pane: string, state: string, extra: Record<string, unknown> = {}) =>
  api.request<{ state: string; ignored?: string }>('pane.report_agent', { pane_id: pane, agent: 'claude', state, source: 'hook', ...extra });

describe('waits and agent state', () => {
  let srv: InProcessServer;
  let api: ApiClient;
  let pane: string;
  before(async () => {
    srv = await startInProcess();
    api = await srv.connect();
    pane = (await api.request<{ pane_id: string }>('pane.split', { command: ['/bin/sh'] })).pane_id;
  });
  after(() => srv.stop());

  test('a wait on a state the pane is already in answers at once', async () => {
    await report(api, pane, 'idle');
    const t0 = Date.now();
    const r = await api.request<{ event: { current?: boolean }; matched: string[] }>('events.wait', { panes: [pane], states: ['idle', 'done'], timeout_ms: 5000 });
    assert.deepEqual(r.matched, [pane]);
    assert.equal(r.event.current, true);
    assert.ok(Date.now() - t0 < 1000);
  });

  test('a wait ends when the state is reached, with the event that did it', async () => {
    await report(api, pane, 'working');
    const w = api.request<{ event: { type: string; new: string; old: string; source: string } }>('events.wait', { panes: [pane], states: ['blocked'], timeout_ms: 5000 });
    await report(api, pane, 'blocked');
    const r = await w;
    assert.equal(r.event.type, 'pane_agent_status_changed');
    assert.equal(r.event.old, 'working');
    assert.equal(r.event.new, 'blocked');
    assert.equal(r.event.source, 'hook');
  });

  test('a wait times out with code timeout and the current states', async () => {
    await report(api, pane, 'working');
    const t0 = Date.now();
    const e = await errOf(api.request('events.wait', { panes: [pane], states: ['idle'], timeout_ms: 150 }));
    assert.equal(e.code, 'timeout');
    assert.deepEqual((e.data as { states: Record<string, string> }).states, { [pane]: 'working' });
    assert.ok(Date.now() - t0 >= 140);
  });

  test('--all waits until every pane matches at the same time; --any for one', async () => {
    const other = (await api.request<{ pane_id: string }>('pane.split', { pane_id: pane, command: ['/bin/sh'] })).pane_id;
    await report(api, pane, 'working');
    await report(api, other, 'working');
    const all = api.request<{ matched: string[] }>('events.wait', { panes: [pane, other], states: ['done', 'idle'], mode: 'all', timeout_ms: 5000 });
    const any = api.request<{ matched: string[] }>('events.wait', { panes: [pane, other], states: ['done', 'idle'], mode: 'any', timeout_ms: 5000 });
    await report(api, pane, 'done');
    assert.deepEqual((await any).matched, [pane]);
    let allDone = false;
    void all.then(() => (allDone = true));
    await api.request('ping');
    assert.equal(allDone, false, 'all-wait still pending with one pane working');
    await report(api, other, 'done');
    assert.deepEqual((await all).matched.sort(), [other, pane].sort());
    await api.request('pane.close', { pane_id: other });
  });

  test('a wait ends with pane_gone when the pane\'s program exits or the pane closes', async () => {
    const p = (await api.request<{ pane_id: string }>('pane.split', { pane_id: pane, command: ['/bin/sh', '-c', 'read x; exit 3'] })).pane_id;
    const w = api.request('events.wait', { panes: [p], states: ['idle'], timeout_ms: 5000 });
    await api.request('pane.send_text', { pane_id: p, text: 'go', enter: true });
    const e = await errOf(w);
    assert.equal(e.code, 'pane_gone');
    assert.equal((await api.request<{ exited: { code: number } }>('pane.get', { pane_id: p })).exited.code, 3);
    const e2 = await errOf(api.request('events.wait', { panes: [p], states: ['idle'], timeout_ms: 5000 }));
    assert.equal(e2.code, 'pane_gone', 'waiting on an exited pane fails at once');
    const q = (await api.request<{ pane_id: string }>('pane.split', { pane_id: pane, command: ['/bin/sh'] })).pane_id;
    const w2 = api.request('events.wait', { panes: [q], states: ['idle'], timeout_ms: 5000 });
    await api.request('pane.close', { pane_id: q });
    assert.equal((await errOf(w2)).code, 'pane_gone');
    await api.request('pane.close', { pane_id: p });
  });

  test('reports with an older seq than the last are dropped', async () => {
    await report(api, pane, 'working', { seq: 100 });
    const r = await report(api, pane, 'idle', { seq: 99 });
    assert.match(r.ignored ?? '', /stale seq/);
    assert.equal(r.state, 'working');
    assert.equal((await report(api, pane, 'blocked', { seq: 101 })).state, 'blocked');
  });

  test('a hook report outranks heuristics until reset; reset falls back to the heuristic reading', async () => {
    await report(api, pane, 'working', { seq: 200 });
    srv.session.dispatch({ type: 'agent.detected', pane, agent: 'claude', state: 'idle', rule: 'test' });
    let g = await api.request<{ agent: { state: string; hook_locked: boolean } }>('pane.get', { pane_id: pane });
    assert.equal(g.agent.state, 'working');
    assert.equal(g.agent.hook_locked, true);
    const r = await api.request<{ state: string }>('pane.reset_agent', { pane_id: pane });
    assert.notEqual(r.state, 'working');
    g = await api.request('pane.get', { pane_id: pane });
    assert.equal(g.agent.hook_locked, false);
    // Read in the same turn as the dispatch: the pane's real detection loop (a hook report re-runs it at once) may
    // report its own reading of the shell's screen a moment later, which is heuristics driving the badge too.
    srv.session.dispatch({ type: 'agent.detected', pane, agent: 'claude', state: 'blocked', rule: 'test' });
    assert.equal(srv.session.state().panes[pane]!.agent.state, 'blocked', 'heuristics drive the badge again');
    // after a reset, older seqs are accepted again (a new agent session starts counting anew)
    assert.equal((await report(api, pane, 'idle', { seq: 1 })).state, 'idle');
  });

  test('an exited program resets the hook lock and the state becomes unknown', async () => {
    const p = (await api.request<{ pane_id: string }>('pane.split', { pane_id: pane, command: ['/bin/sh', '-c', 'read x; exit 5'] })).pane_id; // a failure: the pane stays
    await report(api, p, 'working');
    const events: Array<Record<string, unknown>> = [];
    const sub = await srv.connect();
    sub.onMessage((m) => m.event && events.push(m.event as Record<string, unknown>));
    await sub.request('events.subscribe', { panes: [p] });
    await api.request('pane.send_text', { pane_id: p, text: '', enter: true });
    await waitFor(() => events.some((e) => e.type === 'pane_exited'), { message: 'exit event' });
    const g = await api.request<{ agent: { state: string; hook_locked: boolean } }>('pane.get', { pane_id: p });
    assert.equal(g.agent.state, 'unknown');
    assert.equal(g.agent.hook_locked, false);
    assert.ok(events.some((e) => e.type === 'pane_agent_status_changed' && e.new === 'unknown'));
    assert.equal((await errOf(report(api, p, 'working'))).code, 'not_allowed');
    await api.request('pane.close', { pane_id: p });
  });
});
