// The reducer: windows, panes, focus, zoom, clients and sizes, driven with no pty and no terminal.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ActionContext, AnyAction } from '../../src/core/actions.js';
import { emptyState, reduce, type ReduceResult } from '../../src/core/reducer.js';
import { paneSizes, visibleRects } from '../../src/core/select.js';
import type { State } from '../../src/core/types.js';

let now = 1000;
const ctx = (client?: string): ActionContext => ({ client, now: ++now, defaultCommand: ['/bin/sh'], defaultCwd: '/tmp' });

function run(state: State, ...actions: Array<AnyAction | [AnyAction, string]>): ReduceResult {
  let r: ReduceResult = { state, events: [], effects: [] };
  for (const item of actions) {
    const [a, client] = Array.isArray(item) ? item : [item, undefined];
    const next = reduce(r.state, a, ctx(client));
    assert.equal(next.error, undefined, `${a.type}: ${next.error?.message}`);
    r = { ...next, events: [...r.events, ...next.events], effects: [...r.effects, ...next.effects] };
  }
  return r;
}

const init = (): State =>
  run(emptyState('main'), { type: 'server.init', cols: 80, rows: 24, command: ['/bin/bash'], cwd: '/home/u' }, { type: 'client.attach', client: 'c1', cols: 100, rows: 31 }).state;

test('server.init makes one window with one pane and a spawn effect', () => {
  const r = run(emptyState('main'), { type: 'server.init', cols: 80, rows: 24, command: ['/bin/bash'], cwd: '/home/u' });
  assert.deepEqual(r.state.windowOrder, ['w1']);
  assert.deepEqual(Object.keys(r.state.panes), ['w1:p1']);
  assert.deepEqual(r.effects, [{ type: 'spawn', pane: 'w1:p1', command: ['/bin/bash'], cwd: '/home/u', env: undefined }]);
  assert.deepEqual(r.events.map((e) => e.type), ['window_created', 'pane_created']);
  assert.deepEqual(r.state.windows.w1.size, { cols: 80, rows: 23 }, 'one row for the status bar');
});

test('attaching a client sizes the window to it; detaching keeps the size', () => {
  const s = init();
  assert.deepEqual(s.windows.w1.size, { cols: 100, rows: 30 });
  assert.deepEqual(paneSizes(s).get('w1:p1'), { cols: 98, rows: 28 });
  const d = run(s, { type: 'client.detach', client: 'c1' }).state;
  assert.deepEqual(d.windows.w1.size, { cols: 100, rows: 30 });
  assert.deepEqual(Object.keys(d.clients), []);
});

test('two clients: the smaller wins for the shared window', () => {
  const s = run(init(), { type: 'client.attach', client: 'c2', cols: 60, rows: 20 }).state;
  assert.deepEqual(s.windows.w1.size, { cols: 60, rows: 19 });
  const after = run(s, { type: 'client.detach', client: 'c2' }).state;
  assert.deepEqual(after.windows.w1.size, { cols: 100, rows: 30 });
});

test('split from a client targets its focused pane, focuses the new one, ids are per window and never reused', () => {
  let r = run(init(), [{ type: 'pane.split', direction: 'right' }, 'c1']);
  assert.equal(r.state.windows.w1.active, 'w1:p2');
  assert.deepEqual(r.result, { pane: 'w1:p2', window: 'w1' });
  assert.equal(r.state.panes['w1:p2'].cwd, '/home/u', 'new pane starts in the split pane\'s cwd');
  r = run(r.state, [{ type: 'pane.close' }, 'c1']);
  assert.equal(r.state.windows.w1.active, 'w1:p1');
  assert.ok(r.effects.some((e) => e.type === 'kill' && e.pane === 'w1:p2'));
  r = run(r.state, [{ type: 'pane.split', direction: 'down' }, 'c1']);
  assert.ok(r.state.panes['w1:p3'], 'a closed pane id is never reused');
  assert.ok(!r.state.panes['w1:p2']);
});

test('errors leave state untouched', () => {
  const s = init();
  const r = reduce(s, { type: 'pane.close', pane: 'w9:p9' }, ctx());
  assert.equal(r.error?.code, 'pane_not_found');
  assert.equal(r.state, s);
  let t = s;
  for (let i = 0; i < 40; i++) {
    const x = reduce(t, { type: 'pane.split', direction: 'right' }, ctx('c1'));
    if (x.error) {
      assert.equal(x.error.code, 'no_space');
      return;
    }
    t = x.state;
  }
  assert.fail('splitting forever should run out of space');
});

test('focus by direction, cycle and last; done becomes idle when focused', () => {
  let s = run(init(), [{ type: 'pane.split', direction: 'right' }, 'c1'], [{ type: 'pane.split', direction: 'down' }, 'c1']).state;
  assert.equal(s.windows.w1.active, 'w1:p3');
  s = run(s, [{ type: 'pane.focus', direction: 'left' }, 'c1']).state;
  assert.equal(s.windows.w1.active, 'w1:p1');
  s = run(s, [{ type: 'pane.focus', cycle: 'last' }, 'c1']).state;
  assert.equal(s.windows.w1.active, 'w1:p3');
  s = run(s, [{ type: 'pane.focus', cycle: 'next' }, 'c1']).state;
  assert.equal(s.windows.w1.active, 'w1:p1');
  // an agent in p2 finishes a turn while p1 is focused: done, with a notification effect
  const r = run(s, { type: 'agent.report', pane: 'w1:p2', agent: 'claude', state: 'done', source: 'hook' });
  assert.equal(r.state.panes['w1:p2'].agent.state, 'done');
  assert.ok(r.effects.some((e) => e.type === 'notify' && e.pane === 'w1:p2'));
  const f = run(r.state, [{ type: 'pane.focus', direction: 'right' }, 'c1']);
  assert.equal(f.state.windows.w1.active, 'w1:p2');
  assert.equal(f.state.panes['w1:p2'].agent.state, 'idle');
  assert.ok(f.events.some((e) => e.type === 'pane_agent_status_changed' && e.new === 'idle'));
});

test('zoom shows one pane with the whole area; hidden panes keep their size', () => {
  let s = run(init(), [{ type: 'pane.split', direction: 'right' }, 'c1']).state;
  s = run(s, [{ type: 'pane.zoom' }, 'c1']).state;
  assert.equal(s.windows.w1.zoomed, 'w1:p2');
  assert.deepEqual([...visibleRects(s.windows.w1).keys()], ['w1:p2']);
  assert.deepEqual(paneSizes(s).get('w1:p2'), { cols: 98, rows: 28 });
  assert.deepEqual(paneSizes(s).get('w1:p1'), { cols: 48, rows: 28 });
  s = run(s, [{ type: 'pane.focus', direction: 'left' }, 'c1']).state;
  assert.equal(s.windows.w1.zoomed, undefined, 'moving focus away unzooms');
});

test('windows: new, select by index/relative/last, rename, close renumbers', () => {
  let s = run(init(), [{ type: 'window.new', name: 'build' }, 'c1'], [{ type: 'window.new' }, 'c1']).state;
  assert.deepEqual(s.windowOrder, ['w1', 'w2', 'w3']);
  assert.equal(s.clients.c1.window, 'w3');
  s = run(s, [{ type: 'window.select', index: 1 }, 'c1']).state;
  assert.equal(s.clients.c1.window, 'w1');
  s = run(s, [{ type: 'window.select', relative: 'last' }, 'c1']).state;
  assert.equal(s.clients.c1.window, 'w3');
  s = run(s, [{ type: 'window.select', relative: 'next' }, 'c1']).state;
  assert.equal(s.clients.c1.window, 'w1');
  s = run(s, [{ type: 'window.rename', window: 'w2', name: 'tests\u001b[31m' }, 'c1']).state;
  assert.equal(s.windows.w2.name, 'tests [31m', 'control characters are stripped');
  const r = run(s, [{ type: 'window.close', window: 'w2' }, 'c1']);
  assert.deepEqual(r.state.windowOrder, ['w1', 'w3']);
  assert.equal(r.state.windows.w3.index, 2);
  assert.ok(!r.state.panes['w2:p1']);
  assert.ok(r.effects.some((e) => e.type === 'kill' && e.pane === 'w2:p1'));
});

test('closing the last pane closes the window; the last window shuts the server down', () => {
  const r = run(init(), [{ type: 'pane.close' }, 'c1']);
  assert.deepEqual(r.state.windowOrder, []);
  assert.ok(r.effects.some((e) => e.type === 'shutdown'));
});

test('an exited pane stays with its code; agent state goes unknown; no kill effect on close', () => {
  let r = run(init(), { type: 'agent.report', pane: 'w1:p1', agent: 'claude', state: 'working', source: 'hook' });
  r = run(r.state, { type: 'pane.exited', pane: 'w1:p1', code: 3 });
  assert.equal(r.state.panes['w1:p1'].exited?.code, 3);
  assert.equal(r.state.panes['w1:p1'].agent.state, 'unknown');
  assert.equal(r.state.panes['w1:p1'].agent.hook, undefined, 'exit resets the hook lock');
  const c = run(r.state, [{ type: 'pane.split', direction: 'right' }, 'c1'], { type: 'pane.close', pane: 'w1:p1' });
  assert.ok(!c.effects.some((e) => e.type === 'kill' && e.pane === 'w1:p1'));
});

test('swap and resize change the layout, not pane ids', () => {
  let s = run(init(), [{ type: 'pane.split', direction: 'right' }, 'c1']).state;
  const before = visibleRects(s.windows.w1);
  s = run(s, [{ type: 'pane.swap', with: 'prev' }, 'c1']).state;
  const after = visibleRects(s.windows.w1);
  assert.deepEqual(after.get('w1:p2'), before.get('w1:p1'));
  assert.equal(s.windows.w1.active, 'w1:p2');
  s = run(s, [{ type: 'pane.resize', direction: 'right', cells: 10 }, 'c1']).state;
  assert.equal(visibleRects(s.windows.w1).get('w1:p2')!.w, 60);
});

test('the foreground program names a pane (and its window) until it is the pane\'s own command again', () => {
  let s = init();
  s = run(s, { type: 'pane.foreground', pane: 'w1:p1', name: 'vim' }).state;
  assert.equal(s.panes['w1:p1'].foreground, 'vim');
  s = run(s, { type: 'pane.foreground', pane: 'w1:p1', name: 'bash' }).state;
  assert.equal(s.panes['w1:p1'].foreground, undefined, 'back at the shell: the command names it');
  s = run(s, { type: 'pane.title', pane: 'w1:p1', title: 'my title' }, { type: 'pane.foreground', pane: 'w1:p1', name: 'htop' }).state;
  assert.equal(s.panes['w1:p1'].programTitle, 'my title', 'a program-set title wins over the process name');
});
