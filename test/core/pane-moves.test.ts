// break-pane, join-pane and respawn-pane in the pure reducer: ids and programs kept, windows made and removed, clients follow.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ActionContext, AnyAction } from '../../src/core/actions.js';
import { panesOf } from '../../src/core/layout.js';
import { emptyState, reduce, type ReduceResult } from '../../src/core/reducer.js';
import type { State } from '../../src/core/types.js';

let now = 1000;
const ctx = (client?: string): ActionContext => ({ client, now: ++now, defaultCommand: ['/bin/sh'], defaultCwd: '/tmp' });
const step = (s: State, a: AnyAction, client?: string): ReduceResult => reduce(s, a, ctx(client));
function ok(s: State, a: AnyAction, client?: string): ReduceResult {
  const r = step(s, a, client);
  assert.equal(r.error, undefined, `${a.type}: ${r.error?.message}`);
  return r;
}
const twoPanes = (): State => {
  let s = ok(emptyState('main'), { type: 'server.init', cols: 80, rows: 24, command: ['/bin/bash'], cwd: '/home/u' }).state;
  s = ok(s, { type: 'client.attach', client: 'c1', cols: 100, rows: 31 }).state;
  return ok(s, { type: 'pane.split', direction: 'right' }, 'c1').state;
};

test('pane.break: the focused pane gets a new window, keeps its id, the client follows; alone, it is refused', () => {
  const s = twoPanes();
  const r = ok(s, { type: 'pane.break' }, 'c1');
  assert.deepEqual(r.state.windowOrder, ['w1', 'w2']);
  assert.deepEqual(panesOf(r.state.windows.w1.layout), ['w1:p1']);
  assert.deepEqual(panesOf(r.state.windows.w2.layout), ['w1:p2']);
  assert.equal(r.state.panes['w1:p2'].window, 'w2');
  assert.equal(r.state.windows.w1.active, 'w1:p1');
  assert.equal(r.state.clients.c1.window, 'w2');
  assert.equal(r.effects.length, 0, 'no program is killed or spawned');
  assert.deepEqual(r.events.map((e) => e.type), ['layout_changed', 'window_created', 'pane_moved']);
  assert.equal(step(r.state, { type: 'pane.break' }, 'c1').error?.code, 'not_allowed');
  // A split in the new window numbers its panes afresh; ids never collide.
  const split = ok(r.state, { type: 'pane.split' }, 'c1');
  assert.deepEqual(panesOf(split.state.windows.w2.layout), ['w1:p2', 'w2:p1']);
});

test('pane.join: brings a pane back beside another; the emptied window closes and its viewers move', () => {
  const broken = ok(twoPanes(), { type: 'pane.break' }, 'c1').state;
  const r = ok(broken, { type: 'pane.join', pane: 'w1:p2', target: 'w1:p1', direction: 'down' }, 'c1');
  assert.deepEqual(r.state.windowOrder, ['w1']);
  assert.deepEqual(panesOf(r.state.windows.w1.layout), ['w1:p1', 'w1:p2']);
  assert.equal(r.state.windows.w1.layout.kind === 'split' && r.state.windows.w1.layout.axis, 'col', 'down = stacked');
  assert.equal(r.state.clients.c1.window, 'w1');
  assert.equal(r.state.windows.w1.active, 'w1:p2', 'the joined pane is focused');
  assert.equal(r.state.panes['w1:p2'].window, 'w1');
  assert.ok(r.events.some((e) => e.type === 'window_closed'));
  assert.equal(r.effects.length, 0);
  assert.equal(step(r.state, { type: 'pane.join', pane: 'w1:p2', target: 'w1:p2' }, 'c1').error?.code, 'invalid_params');
  assert.equal(step(r.state, { type: 'pane.join', pane: 'w9:p9' }, 'c1').error?.code, 'pane_not_found');
  // Within one window, join only moves the pane.
  const moved = ok(r.state, { type: 'pane.join', pane: 'w1:p1', target: 'w1:p2', direction: 'right' }, 'c1');
  assert.deepEqual(panesOf(moved.state.windows.w1.layout), ['w1:p2', 'w1:p1']);
});

test('pane.respawn: an exited pane runs its command again; a running one only with kill', () => {
  const s = twoPanes();
  assert.equal(step(s, { type: 'pane.respawn', pane: 'w1:p2' }, 'c1').error?.code, 'not_allowed');
  const exited = ok(s, { type: 'pane.exited', pane: 'w1:p2', code: 3 }).state;
  const r = ok(exited, { type: 'pane.respawn', pane: 'w1:p2' }, 'c1');
  assert.equal(r.state.panes['w1:p2'].exited, undefined);
  assert.deepEqual(r.effects, [{ type: 'kill', pane: 'w1:p2' }, { type: 'spawn', pane: 'w1:p2', command: ['/bin/sh'], cwd: '/home/u', env: undefined }]);
  const killed = ok(s, { type: 'pane.respawn', pane: 'w1:p2', kill: true }, 'c1');
  assert.equal(killed.effects[0].type, 'kill');
});
