// Recursive episodes in the pure core: episode.start/end, sub-harness splits, limits, placement, children closed with
// their parent (or kept), and the roll-up of a pane's tree in the view.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ActionContext, AnyAction } from '../../src/core/actions.js';
import { panesOf } from '../../src/core/layout.js';
import { emptyState, reduce, type ReduceResult } from '../../src/core/reducer.js';
import { visibleRects } from '../../src/core/select.js';
import type { EpisodeLimits, State } from '../../src/core/types.js';
import { buildView } from '../../src/core/view.js';

let now = 1000;
let limits: EpisodeLimits | undefined;
const ctx = (client?: string): ActionContext => ({ client, now: ++now, defaultCommand: ['/bin/sh'], defaultCwd: '/tmp', ...(limits ? { limits } : {}) });

function run(state: State, ...actions: AnyAction[]): ReduceResult {
  let r: ReduceResult = { state, events: [], effects: [] };
  for (const a of actions) {
    const next = reduce(r.state, a, ctx());
    assert.equal(next.error, undefined, `${a.type}: ${next.error?.message}`);
    r = { ...next, events: [...r.events, ...next.events], effects: [...r.effects, ...next.effects] };
  }
  return r;
}

function refused(state: State, a: AnyAction): { code: string; message: string } {
  const r = reduce(state, a, ctx());
  assert.ok(r.error, `${a.type} should be refused`);
  assert.equal(r.state, state, 'a refusal changes nothing');
  return r.error!;
}

const init = (): State =>
  run(emptyState('main'), { type: 'server.init', cols: 160, rows: 40, command: ['/bin/bash'], cwd: '/work' }, { type: 'client.attach', client: 'c1', cols: 160, rows: 41 }).state;

const sub = (pane: string, command = ['./child.sh']): AnyAction => ({ type: 'pane.split', pane, command, subHarness: true, detached: true });
const rlm = (state: State, pane = 'w1:p1', goalId = 'G'): State => run(state, { type: 'episode.start', pane, goalId }).state;

test('episode.start marks a root at depth 0; a sub-harness split gets parent, inherited goal, depth and its own env', () => {
  limits = undefined;
  const s0 = rlm(init());
  assert.deepEqual(s0.panes['w1:p1'].episode, { goalId: 'G', depth: 0, rlm: true });
  const r = run(s0, sub('w1:p1'));
  assert.deepEqual(r.result, { pane: 'w1:p2', window: 'w1', parent: 'w1:p1', depth: 1, goal_id: 'G' });
  const c = r.state.panes['w1:p2'];
  assert.equal(c.parent, 'w1:p1');
  assert.deepEqual(c.episode, { goalId: 'G', depth: 1, rlm: true });
  assert.equal(c.cwd, '/work', 'the child starts where its parent is');
  const spawn = r.effects.find((e) => e.type === 'spawn');
  assert.deepEqual(spawn && spawn.type === 'spawn' ? spawn.env : undefined, { CASTELLAN_GOAL_ID: 'G', CASTELLAN_PARENT_PANE: 'w1:p1', CASTELLAN_DEPTH: '1' });
  const created = r.events.find((e) => e.type === 'sub_harness_created');
  assert.deepEqual({ ...created }, { type: 'sub_harness_created', pane: 'w1:p2', window: 'w1', parent: 'w1:p1', depth: 1, goal_id: 'G' });
  assert.equal(r.state.windows.w1.active, 'w1:p1', 'a sub-harness pane leaves focus with its parent (detached)');
  // episode.start in a sub-harness pane keeps its tree's goal and depth: a nested `run --rlm` cannot reset the depth.
  const again = run(r.state, { type: 'episode.start', pane: 'w1:p2', goalId: 'OTHER' });
  assert.deepEqual(again.result, { pane: 'w1:p2', goal_id: 'G', depth: 1, rlm: true, sub_harness: true, parent: 'w1:p1' });
});

test('a pane outside a recursive episode cannot delegate; an exited parent neither', () => {
  limits = undefined;
  const s = init();
  const e = refused(s, sub('w1:p1'));
  assert.equal(e.code, 'not_allowed');
  assert.match(e.message, /w1:p1 is not in a recursive episode: start its agent with `castellan run --rlm -- COMMAND`/);
  const plain = run(s, { type: 'episode.start', pane: 'w1:p1', goalId: 'G', rlm: false }).state;
  assert.equal(refused(plain, sub('w1:p1')).code, 'not_allowed', 'an episode without rlm may not delegate');
  const exited = run(rlm(s), { type: 'pane.exited', pane: 'w1:p1', code: 0 }).state;
  assert.match(refused(exited, sub('w1:p1')).message, /has exited/);
});

test('placement: the first child right of its parent, later ones stacked evenly below it, all beside the parent', () => {
  limits = undefined;
  let s = rlm(init());
  s = run(s, sub('w1:p1'), sub('w1:p1'), sub('w1:p1')).state;
  const w = s.windows.w1;
  assert.deepEqual(panesOf(w.layout), ['w1:p1', 'w1:p2', 'w1:p3', 'w1:p4']);
  const r = visibleRects(w);
  const [p, a, b, c] = ['w1:p1', 'w1:p2', 'w1:p3', 'w1:p4'].map((id) => r.get(id)!);
  for (const k of [a, b, c]) assert.equal(k.x, p.x + p.w, 'children form one column right of the parent');
  assert.equal(p.h, 40, 'the parent keeps its full height');
  assert.ok(a.y < b.y && b.y < c.y, 'in creation order, top to bottom');
  const hs = [a.h, b.h, c.h];
  assert.ok(Math.max(...hs) - Math.min(...hs) <= 1, `children share the column evenly: ${hs}`);
  // A grandchild goes beside its own parent (w1:p3), not into the top-level column.
  s = run(s, sub('w1:p3')).state;
  const g = visibleRects(s.windows.w1).get('w1:p5')!;
  const p3 = visibleRects(s.windows.w1).get('w1:p3')!;
  assert.equal(g.x, p3.x + p3.w);
  assert.equal(g.y, p3.y);
});

test('limits: max_depth and max_children refuse with limit_exceeded and say which limit', () => {
  limits = { maxDepth: 2, maxChildren: 2, keepChildren: false };
  let s = rlm(init());
  s = run(s, sub('w1:p1'), sub('w1:p2')).state; // w1:p2 depth 1, w1:p3 depth 2
  assert.equal(s.panes['w1:p3'].episode?.depth, 2);
  const deep = refused(s, sub('w1:p3'));
  assert.equal(deep.code, 'limit_exceeded');
  assert.equal(deep.message, 'w1:p3 is at depth 2: a sub-harness pane would be at depth 3 (limits.max_depth = 2)');
  s = run(s, sub('w1:p1')).state; // w1:p4: the root's second child
  const wide = refused(s, sub('w1:p1'));
  assert.equal(wide.code, 'limit_exceeded');
  assert.equal(wide.message, 'w1:p1 already has 2 sub-harness panes (limits.max_children = 2)');
  // Children that exited no longer count against max_children.
  s = run(s, { type: 'pane.exited', pane: 'w1:p4', code: 0 }).state;
  assert.ok(run(s, sub('w1:p1')).state.panes['w1:p5']);
  limits = undefined;
});

test('the default limits are depth 3 and 8 children', () => {
  limits = undefined;
  let s = rlm(init());
  s = run(s, sub('w1:p1'), sub('w1:p2'), sub('w1:p3')).state;
  assert.match(refused(s, sub('w1:p4')).message, /\(limits\.max_depth = 3\)$/);
  let w = rlm(run(emptyState('m'), { type: 'server.init', cols: 300, rows: 80, command: ['/bin/sh'], cwd: '/' }).state);
  for (let i = 0; i < 8; i++) w = run(w, sub('w1:p1')).state;
  assert.equal(refused(w, sub('w1:p1')).message, 'w1:p1 already has 8 sub-harness panes (limits.max_children = 8)');
});

test('when the parent\'s program exits, its live children are closed (and theirs), each with sub_harness_ended', () => {
  limits = undefined;
  let s = rlm(init());
  s = run(s, sub('w1:p1'), sub('w1:p1'), sub('w1:p2')).state; // p2, p3 children of p1; p4 child of p2
  s = run(s, { type: 'pane.exited', pane: 'w1:p3', code: 0 }).state;
  const r = run(s, { type: 'pane.exited', pane: 'w1:p1', code: 0 });
  assert.deepEqual(Object.keys(r.state.panes), ['w1:p1'], 'the whole tree is gone; the parent stays to show its exit');
  const ended = r.events.filter((e) => e.type === 'sub_harness_ended').map((e) => ({ ...e }) as Record<string, unknown>);
  assert.deepEqual(
    ended.map((e) => [e.pane, e.parent, e.depth, e.status]),
    [
      ['w1:p4', 'w1:p2', 2, 'closed'],
      ['w1:p2', 'w1:p1', 1, 'closed'],
    ],
    'the exited child (p3) already reported its end; the running ones are closed',
  );
  const killed = r.effects.filter((e) => e.type === 'kill').map((e) => (e as { pane: string }).pane);
  assert.deepEqual(killed.sort(), ['w1:p2', 'w1:p4'], 'their programs are ended');
  // The exited child's own end was reported when it exited, with its status.
  const own = run(rlm(init()), sub('w1:p1'), { type: 'pane.exited', pane: 'w1:p2', code: 3 });
  const e = own.events.find((x) => x.type === 'sub_harness_ended') as Record<string, unknown>;
  assert.deepEqual([e.pane, e.parent, e.depth, e.status, e.exit_code, e.goal_id], ['w1:p2', 'w1:p1', 1, 'failed', 3, 'G']);
});

test('closing the parent pane closes its children; episode.end closes them and ends the root\'s episode', () => {
  limits = undefined;
  let s = rlm(init());
  s = run(s, sub('w1:p1'), sub('w1:p1')).state;
  s = run(s, { type: 'pane.split', pane: 'w1:p1', direction: 'down' }).state; // w1:p4: a plain pane, not a child
  const closed = run(s, { type: 'pane.close', pane: 'w1:p1' });
  assert.deepEqual(Object.keys(closed.state.panes), ['w1:p4']);
  assert.equal(closed.events.filter((e) => e.type === 'sub_harness_ended').length, 2);
  const ended = run(s, { type: 'episode.end', pane: 'w1:p1' });
  assert.deepEqual(ended.result, { pane: 'w1:p1', closed: ['w1:p2', 'w1:p3'], kept: [] });
  assert.equal(ended.state.panes['w1:p1'].episode, undefined, 'the root is no longer an episode');
  assert.equal(refused(ended.state, sub('w1:p1')).code, 'not_allowed');
  // Closing the whole window reports the running children too.
  const win = run(s, { type: 'window.new' }, { type: 'window.close', window: 'w1' });
  assert.equal(win.events.filter((e) => e.type === 'sub_harness_ended').length, 2);
});

test('keep_children: children outlive their parent\'s exit, close and episode end', () => {
  limits = { maxDepth: 3, maxChildren: 8, keepChildren: true };
  let s = rlm(init());
  s = run(s, sub('w1:p1'), sub('w1:p1')).state;
  const exited = run(s, { type: 'pane.exited', pane: 'w1:p1', code: 0 });
  assert.deepEqual(Object.keys(exited.state.panes), ['w1:p1', 'w1:p2', 'w1:p3']);
  assert.equal(exited.events.filter((e) => e.type === 'sub_harness_ended').length, 0);
  const ended = run(s, { type: 'episode.end', pane: 'w1:p1' });
  assert.deepEqual(ended.result, { pane: 'w1:p1', closed: [], kept: ['w1:p2', 'w1:p3'] });
  const closed = run(s, { type: 'pane.close', pane: 'w1:p1' });
  assert.deepEqual(Object.keys(closed.state.panes), ['w1:p2', 'w1:p3']);
  assert.equal(closed.state.panes['w1:p2'].parent, 'w1:p1', 'a kept child still names where it came from');
  limits = undefined;
});

test('a reserved pane id is used once by the split it was reserved for; a plain split never takes it', () => {
  limits = undefined;
  const s = rlm(init());
  const res = run(s, { type: 'pane.reserve', window: 'w1' });
  assert.deepEqual(res.result, { pane: 'w1:p2', window: 'w1' });
  const other = run(res.state, { type: 'pane.split', pane: 'w1:p1' });
  assert.equal(other.result?.pane, 'w1:p3', 'another split meanwhile gets the next number');
  const r = run(other.state, { type: 'pane.split', pane: 'w1:p1', subHarness: true, detached: true, reserved: 'w1:p2' });
  assert.equal(r.result?.pane, 'w1:p2');
  assert.deepEqual(r.state.windows.w1.reserved, []);
  assert.equal(refused(r.state, { type: 'pane.split', pane: 'w1:p1', subHarness: true, reserved: 'w1:p2' }).code, 'invalid_params', 'never twice');
  assert.equal(refused(s, { type: 'pane.split', pane: 'w1:p1', reserved: 'w1:p9' }).code, 'invalid_params', 'never an id nobody reserved');
  const un = run(res.state, { type: 'pane.unreserve', pane: 'w1:p2' });
  assert.deepEqual(un.state.windows.w1.reserved, []);
});

test('the view rolls a pane\'s tree up into its border: running children, their states, the one that needs the user', () => {
  limits = undefined;
  let s = rlm(init());
  s = run(s, sub('w1:p1'), sub('w1:p1'), sub('w1:p2')).state;
  s = run(
    s,
    { type: 'agent.report', pane: 'w1:p1', agent: 'claude', state: 'working', source: 'hook' },
    { type: 'agent.report', pane: 'w1:p2', agent: 'child', state: 'working', source: 'cli' },
    { type: 'agent.report', pane: 'w1:p3', agent: 'child', state: 'idle', source: 'cli' },
    { type: 'agent.report', pane: 'w1:p4', agent: 'child', state: 'blocked', source: 'cli' },
  ).state;
  const v = buildView(s, 'c1')!;
  const root = v.window.panes.find((p) => p.id === 'w1:p1')!;
  assert.deepEqual(root.children, { total: 3, live: 3, rollup: 'blocked', counts: { idle: 1, working: 1, blocked: 1, done: 0, unknown: 0 } });
  const mid = v.window.panes.find((p) => p.id === 'w1:p2')!;
  assert.equal(mid.parent, 'w1:p1');
  assert.deepEqual(mid.children, { total: 1, live: 1, rollup: 'blocked', counts: { idle: 0, working: 0, blocked: 1, done: 0, unknown: 0 } });
  assert.equal(v.window.panes.find((p) => p.id === 'w1:p3')!.children, undefined, 'a leaf has no roll-up');
  const after = buildView(run(s, { type: 'pane.exited', pane: 'w1:p4', code: 0 }).state, 'c1')!;
  assert.deepEqual(after.window.panes.find((p) => p.id === 'w1:p1')!.children, { total: 3, live: 2, rollup: 'working', counts: { idle: 1, working: 1, blocked: 0, done: 0, unknown: 0 } });
  assert.equal(v.windows[0].rollup, 'blocked', 'the window tab counts every agent pane, children included');
});
