// Pure pieces behind the tmux-habits fixes: the turn-ended event, the wait rule, sh -c wrapping, the cwd choice, badge visibility.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { matching } from '../../src/api/wait.js';
import type { ActionContext, AnyAction } from '../../src/core/actions.js';
import { emptyState, reduce } from '../../src/core/reducer.js';
import { shellCommand } from '../../src/core/shell-command.js';
import type { State } from '../../src/core/types.js';
import { buildView } from '../../src/core/view.js';
import { withNewPaneCwd } from '../../src/server/new-pane-cwd.js';

let now = 1000;
const ctx = (client?: string): ActionContext => ({ client, now: ++now, defaultCommand: ['/bin/bash'], defaultCwd: '/srv' });
function step(s: State, a: AnyAction, client?: string) {
  const r = reduce(s, a, ctx(client));
  assert.equal(r.error, undefined, r.error?.message);
  return r;
}
const init = () => {
  let s = step(emptyState('main'), { type: 'server.init', cols: 80, rows: 24, command: ['/bin/bash'], cwd: '/srv' }).state;
  s = step(s, { type: 'client.attach', client: 'c1', cols: 80, rows: 24 }).state;
  return step(s, { type: 'pane.split', direction: 'right', detached: true }).state; // w1:p1 focused, w1:p2 not
};
const report = (pane: string, state: 'working' | 'done' | 'idle' | 'blocked', message?: string): AnyAction =>
  ({ type: 'agent.report', pane, agent: 'claude', state, source: 'hook', ...(message ? { message } : {}) }) as AnyAction;

test('a turn ending in the focused pane: the badge says idle, and pane_agent_turn_ended follows the status change', () => {
  let s = step(init(), report('w1:p1', 'working')).state;
  const r = step(s, report('w1:p1', 'done'));
  assert.equal(r.state.panes['w1:p1'].agent.state, 'idle');
  assert.deepEqual(r.events.map((e) => e.type), ['pane_agent_status_changed', 'pane_agent_turn_ended']);
  s = r.state;
  const again = step(s, report('w1:p1', 'done'));
  assert.deepEqual(again.events.map((e) => e.type), ['pane_agent_turn_ended'], 'done on an idle focused pane changes no badge but ends a turn');
  const stale = step(step(s, report('w1:p2', 'idle')).state, report('w1:p2', 'idle'));
  assert.ok(!stale.events.some((e) => e.type === 'pane_agent_turn_ended'), 'idle after idle ends no turn');
});

test('the wait rule: idle accepts done; done accepts a pane whose turn ended during the wait', () => {
  let s = step(init(), report('w1:p2', 'working')).state;
  s = step(s, report('w1:p2', 'done')).state;
  assert.equal(s.panes['w1:p2'].agent.state, 'done', 'unfocused: held as done');
  assert.deepEqual(matching(s, ['w1:p2'], ['idle']), ['w1:p2']);
  assert.deepEqual(matching(s, ['w1:p2'], ['done']), ['w1:p2']);
  s = step(s, report('w1:p1', 'idle')).state;
  assert.deepEqual(matching(s, ['w1:p1'], ['done']), [], 'idle with no turn ended is not done');
  assert.deepEqual(matching(s, ['w1:p1'], ['done'], new Set(['w1:p1'])), ['w1:p1']);
  assert.deepEqual(matching(s, ['w1:p1', 'w1:p2'], ['working']), []);
});

test('sh -c for one string with shell syntax; argv, bare programs and the user\'s shell run as given', () => {
  assert.deepEqual(shellCommand(['echo a && echo b']), ['/bin/sh', '-c', 'echo a && echo b']);
  assert.deepEqual(shellCommand(['make test']), ['/bin/sh', '-c', 'make test']);
  assert.deepEqual(shellCommand(['htop']), ['htop']);
  assert.deepEqual(shellCommand(['/usr/bin/less', '/etc/passwd']), ['/usr/bin/less', '/etc/passwd']);
  assert.deepEqual(shellCommand(['/home/a b/bin/zsh'], ['/home/a b/bin/zsh']), ['/home/a b/bin/zsh']);
  const r = step(init(), { type: 'pane.split', command: ['echo a && echo b'] });
  assert.deepEqual(r.effects.find((e) => e.type === 'spawn')?.command, ['/bin/sh', '-c', 'echo a && echo b']);
});

test('new pane cwd: the focused pane\'s by default, the server\'s with "server", an explicit one always wins', () => {
  const split: AnyAction = { type: 'pane.split', direction: 'right' } as AnyAction;
  const o = { serverCwd: '/srv', focusedCwd: () => '/work/proj' };
  assert.equal((withNewPaneCwd(split, { ...o, mode: 'pane' }) as { cwd?: string }).cwd, '/work/proj');
  assert.equal((withNewPaneCwd(split, { ...o, mode: 'server' }) as { cwd?: string }).cwd, '/srv');
  assert.equal((withNewPaneCwd({ ...split, cwd: '/x' } as AnyAction, { ...o, mode: 'pane' }) as { cwd?: string }).cwd, '/x');
  assert.equal((withNewPaneCwd({ type: 'window.new' } as AnyAction, { ...o, mode: 'pane' }) as { cwd?: string }).cwd, '/work/proj');
  assert.deepEqual(withNewPaneCwd({ type: 'pane.zoom' } as AnyAction, { ...o, mode: 'pane' }), { type: 'pane.zoom' });
});

test('badges: a heuristic state on a pane with no agent is not shown; a report is, with its message until the state changes', () => {
  let s = step(init(), { type: 'agent.detected', pane: 'w1:p2', state: 'working' } as AnyAction).state;
  let v = buildView(s, 'c1')!;
  assert.equal(v.window.panes.find((p) => p.id === 'w1:p2')?.state, 'unknown');
  assert.equal(v.counts.working, 0);
  s = step(s, report('w1:p2', 'blocked', 'needs permission to rm -rf')).state;
  v = buildView(s, 'c1')!;
  const p2 = v.window.panes.find((p) => p.id === 'w1:p2')!;
  assert.deepEqual([p2.state, p2.message], ['blocked', 'needs permission to rm -rf']);
  s = step(s, report('w1:p2', 'working')).state;
  assert.equal(buildView(s, 'c1')!.window.panes.find((p) => p.id === 'w1:p2')?.message, undefined);
});
