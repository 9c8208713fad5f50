// The generic reader in the server's detection loop: marked generic, only for unknown programs, never over hooks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AnyAction } from '../../src/core/actions.js';
import { emptyState, reduce } from '../../src/core/reducer.js';
import type { State } from '../../src/core/types.js';
import { DetectionLoop } from '../../src/server/detection-loop.js';
import { Screen } from '../../src/server/screen.js';
import { FakeClock } from './stream-support.js';

const PANE = 'w1:p1';

function harness(initial: string | undefined) {
  let agent = initial;
  const clock = new FakeClock();
  const screen = new Screen({ cols: 80, rows: 24, scrollback: 100 });
  let state: State = emptyState('t', { cols: 80, rows: 24 });
  const dispatch = (a: AnyAction) => { state = reduce(state, a, { now: clock.now(), defaultCommand: ['/bin/sh'], defaultCwd: '/' }).state; };
  dispatch({ type: 'server.init', cols: 80, rows: 24, command: ['/bin/sh'], cwd: '/' } as AnyAction);
  const loop = new DetectionLoop({
    state: () => state, runtime: () => ({ screen, exited: false, pty: null }), dispatch, log: () => undefined,
    userRulesDir: '/nonexistent/castellan-generic', clock, agentOf: () => agent,
  });
  const write = async (data: string, ms = 0) => {
    await new Promise<void>((res) => screen.write(data, res));
    loop.paneDirty(PANE);
    clock.advance(clock.now() + Math.max(ms, 20));
  };
  const info = () => state.panes[PANE]!.agent;
  return { clock, screen, loop, write, info, dispatch, setAgent: (a: string | undefined) => { agent = a; }, dispose: () => { loop.dispose(); screen.dispose(); } };
}

test('an unknown program: OSC 9;4 reads working, a bell needs you until a key, all marked generic', async () => {
  const h = harness('generic');
  try {
    await h.write('\x1b]9;4;3\x07thinking...', 200);
    assert.equal(h.info().state, 'working');
    assert.equal(h.info().agent, 'generic');
    assert.equal(h.info().heuristic?.rule, 'generic.osc9-4');
    await h.write('\x1b]9;4;0\x07\r\nAllow me to edit main.c? \x07', 100);
    assert.equal(h.info().state, 'blocked');
    assert.equal(h.info().heuristic?.rule, 'generic.bell');
    assert.equal(h.loop.explain(PANE)?.matches[0]?.rule, 'generic.bell', 'herd explain shows the signal');
    assert.match(h.loop.explain(PANE)?.identification?.why ?? '', /generic reader/);
    h.loop.noteInput(PANE, 'y');
    await h.write('y\r\n', 3000); // the echo, then quiet: the fallback settles
    assert.notEqual(h.info().state, 'blocked');
  } finally { h.dispose(); }
});

test('a shell pane (no generic reader): bells, progress and spinner titles make no agent and no badge of their own', async () => {
  const h = harness(undefined);
  try {
    await h.write('$ \x07\x1b]9;4;3\x07\x1b]0;⠙ build\x07', 3000);
    assert.equal(h.info().agent, undefined);
    assert.ok(!h.info().heuristic?.rule?.startsWith('generic.'), h.info().heuristic?.rule);
    assert.notEqual(h.info().state, 'blocked');
  } finally { h.dispose(); }
});

test('a known agent keeps its own rules: a bell in a Claude pane is not read', async () => {
  const h = harness('claude');
  try {
    await h.write('\x07\x1b]9;4;3\x07', 3000);
    assert.equal(h.info().agent, 'claude');
    assert.ok(!h.info().heuristic?.rule?.startsWith('generic.'));
  } finally { h.dispose(); }
});

test('a hook report outranks the generic reader', async () => {
  const h = harness('generic');
  try {
    h.dispatch({ type: 'agent.report', pane: PANE, agent: 'myagent', state: 'working', source: 'hook' } as AnyAction);
    await h.write('\x07 waiting', 500);
    assert.equal(h.info().state, 'working');
    assert.equal(h.info().heuristic?.rule, 'generic.bell', 'read, but held under the report');
  } finally { h.dispose(); }
});

test('the program exits to its shell: the pane is no longer named generic', async () => {
  const h = harness('generic');
  try {
    await h.write('\x1b]0;⠙ busy\x07working', 200);
    assert.equal(h.info().agent, 'generic');
    h.setAgent(undefined); // the foreground is the shell again
    await h.write('\x1b]0;\x07\r\n$ ', 3000);
    assert.equal(h.info().agent, undefined);
    assert.notEqual(h.info().state, 'working');
  } finally { h.dispose(); }
});
