// Episodes on a real in-process server: agent.start with a parent, [limits] from config, and the warnings for hook
// stages a running agent's harness never fires.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StampedEvent } from '../../src/core/events.js';
import { startInProcess, waitFor, type InProcessServer } from '../api/in-process.js';

function collect(s: InProcessServer): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  s.session.subscribe({}, (e: StampedEvent) => out.push(e as unknown as Record<string, unknown>));
  return out;
}

function userFile(s: InProcessServer, rel: string, text: string): void {
  const p = join(s.home, rel);
  mkdirSync(join(p, '..'), { recursive: true });
  writeFileSync(p, text);
}

test('agent.start with parent: a sub-harness agent pane (limits, goal, focus stays); hooks its agent never fires are reported', async (t) => {
  const s = await startInProcess({ cols: 160, rows: 40 });
  t.after(() => s.stop());
  const events = collect(s);
  userFile(s, '.castellan/agents/helper.md', ['---', 'name: helper', 'command: cat', 'agent: other', 'hooks:', '  PostSampling:', '    - type: command', '      command: echo advice', '---', ''].join('\n'));
  const c = await s.connect();
  await assert.rejects(c.request('agent.start', { name: 'helper', parent: 'w1:p1' }), (e: { code?: string; message: string }) => e.code === 'not_allowed' && /not in a recursive episode/.test(e.message));
  assert.equal(Object.keys(s.session.state().panes).length, 1, 'a refused start leaves nothing behind');
  assert.deepEqual(s.session.agents.registry.list(), []);
  await c.request('episode.start', { pane_id: 'w1:p1', goal_id: 'G' });
  const r = await c.request<{ agent_id: string; pane_id: string }>('agent.start', { name: 'helper', parent: 'w1:p1' });
  assert.equal(r.pane_id, 'w1:p2');
  const p = s.session.state().panes['w1:p2'];
  assert.deepEqual([p.parent, p.episode?.depth, p.episode?.goalId, p.env?.CASTELLAN_AGENT_ID, p.env?.CASTELLAN_GOAL_ID], ['w1:p1', 1, 'G', r.agent_id, 'G']);
  assert.equal(s.session.state().windows.w1.active, 'w1:p1', 'the delegating pane keeps focus');
  const warn = events.find((e) => e.type === 'hook_unsupported');
  assert.ok(warn, JSON.stringify(events.map((e) => e.type)));
  assert.deepEqual([warn.stage, warn.harness, warn.pane, warn.agent_id], ['PostSampling', 'other', 'w1:p2', r.agent_id]);
  assert.match(String(warn.message), /^agent helper has PostSampling hooks: other never fires PostSampling \(other has no castellan hook bridge/);
  // The tree: episode.get shows it; closing the parent ends the agent (its pane is closed with it).
  const tree = await c.request<{ children: Array<{ pane_id: string; depth: number; goal_id: string }> }>('episode.get', { pane_id: 'w1:p1' });
  assert.deepEqual(tree.children.map((x) => [x.pane_id, x.depth, x.goal_id]), [['w1:p2', 1, 'G']]);
  await c.request('pane.split', { pane_id: 'w1:p1', direction: 'down' });
  await c.request('pane.close', { pane_id: 'w1:p1' });
  await waitFor(() => events.some((e) => e.type === 'agent_ended' && e.agent_id === r.agent_id), { message: 'the child agent ended with its parent' });
  assert.deepEqual(Object.keys(s.session.state().panes), ['w1:p3']);
});

test('a governance hook stage the agent now running in a pane never fires: a hook_unsupported warning, once', async (t) => {
  const s = await startInProcess({ cols: 120, rows: 30 });
  t.after(() => s.stop());
  userFile(s, '.castellan/config.toml', '[[hooks.hooks]]\nevent = "PreToolUse"\ncommand = "true"\n');
  s.session.reloadConfig();
  const events = collect(s);
  s.session.dispatch({ type: 'agent.report', pane: 'w1:p1', agent: 'claude', state: 'working', source: 'hook' });
  assert.equal(events.filter((e) => e.type === 'hook_unsupported').length, 0, 'Claude fires PreToolUse through the bridge');
  const split = s.session.dispatch({ type: 'pane.split', pane: 'w1:p1', command: ['/bin/cat'] });
  const pane = String(split.result?.pane);
  s.session.dispatch({ type: 'agent.detected', pane, agent: 'cursor', state: 'working' });
  s.session.dispatch({ type: 'agent.detected', pane, agent: 'cursor', state: 'idle' });
  const warns = events.filter((e) => e.type === 'hook_unsupported');
  assert.equal(warns.length, 1, 'said once per pane and agent');
  assert.deepEqual([warns[0].stage, warns[0].harness, warns[0].pane], ['PreToolUse', 'cursor', pane]);
  assert.match(String(warns[0].message), /^PreToolUse hooks are configured, but cursor runs in w1:p2: cursor never fires PreToolUse \(cursor has no castellan hook bridge: its own tool calls are not governed/);
});

test('[limits] from config reach the reducer: max_children and keep_children', async (t) => {
  const s = await startInProcess({ cols: 160, rows: 40 });
  t.after(() => s.stop());
  userFile(s, '.castellan/config.toml', '[limits]\nmax_children = 1\nkeep_children = true\n');
  s.session.reloadConfig();
  const c = await s.connect();
  await c.request('episode.start', { pane_id: 'w1:p1', goal_id: 'G' });
  const first = await c.request<{ pane_id: string; depth: number }>('pane.split', { pane_id: 'w1:p1', sub_harness: true, command: ['/bin/cat'] });
  assert.deepEqual([first.pane_id, first.depth], ['w1:p2', 1]);
  await assert.rejects(c.request('pane.split', { pane_id: 'w1:p1', sub_harness: true, command: ['/bin/cat'] }), (e: { code?: string; message: string }) => e.code === 'limit_exceeded' && e.message === 'w1:p1 already has 1 sub-harness pane (limits.max_children = 1)');
  const end = await c.request<{ closed: string[]; kept: string[] }>('episode.end', { pane_id: 'w1:p1' });
  assert.deepEqual(end, { pane_id: 'w1:p1', closed: [], kept: ['w1:p2'] });
  assert.ok(s.session.pane('w1:p2') && !s.session.pane('w1:p2')!.exited, 'the kept child still runs');
  // A sub-harness split goes through pane.split (hooks first), never straight through the reducer from a client action.
  assert.throws(() => s.session.dispatch({ type: 'pane.split', pane: 'w1:p1', subHarness: true }), /sub-harness panes are opened with the pane.split method/);
});
