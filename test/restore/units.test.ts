// Unit tests of src/restore's pure parts: the reducer's server.restore, the resume table, the plan, the writer's JSON.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { emptyState, reduce } from '../../src/core/reducer.js';
import { agentArgStart, resumeCommand } from '../../src/restore/resume.js';
import { snapshotJson } from '../../src/restore/store.js';
import { planRestore } from '../../src/restore/plan.js';
import { inconsistency, SNAPSHOT_VERSION, type Snapshot } from '../../src/restore/schema.js';

const ctx = { now: 1, defaultCommand: ['/bin/sh'], defaultCwd: '/' };
const leaf = (pane: string) => ({ kind: 'leaf' as const, pane });

test('server.restore installs windows, layout, zoom, focus and an episode tree, and spawns every pane', () => {
  const r = reduce(emptyState('s'), {
    type: 'server.restore',
    cols: 120,
    rows: 40,
    current: 'w3',
    windows: [
      { id: 'w1', layout: { kind: 'split', axis: 'row', ratio: 0.3, a: leaf('w1:p1'), b: leaf('w1:p4') }, active: 'w1:p4', zoomed: 'w1:p4', panes: [
        { id: 'w1:p1', command: ['/bin/sh'], cwd: '/', episode: { goalId: 'g1', depth: 0, rlm: true } },
        { id: 'w1:p4', command: ['/bin/sh'], cwd: '/tmp', parent: 'w1:p1', episode: { goalId: 'g1', depth: 1, rlm: false } },
      ] },
      { id: 'w3', name: 'agents', layout: leaf('w3:p2'), active: 'w3:p2', panes: [{ id: 'w3:p2', command: ['/bin/sh'], cwd: '/' }] },
    ],
  }, ctx);
  assert.equal(r.error, undefined);
  assert.deepEqual(r.state.windowOrder, ['w1', 'w3']);
  assert.equal(r.state.currentWindow, 'w3');
  assert.equal(r.state.nextWindowNo, 4);
  assert.equal(r.state.windows.w1.nextPaneNo, 5);
  assert.equal(r.state.windows.w1.zoomed, 'w1:p4');
  assert.equal(r.state.windows.w3.index, 2);
  assert.equal(r.state.panes['w1:p4'].parent, 'w1:p1');
  assert.deepEqual(r.state.panes['w1:p4'].episode, { goalId: 'g1', depth: 1, rlm: false });
  assert.deepEqual(r.effects.map((e) => e.type === 'spawn' && e.pane), ['w1:p1', 'w1:p4', 'w3:p2']);
  // A new split gets a fresh number, never a restored one.
  const s = reduce(r.state, { type: 'pane.split', pane: 'w1:p1' }, ctx);
  assert.equal(s.result?.pane, 'w1:p5');
});

test('server.restore refuses an inconsistent shape and a session that already has windows', () => {
  const bad = reduce(emptyState('s'), { type: 'server.restore', cols: 80, rows: 24, windows: [{ id: 'w1', layout: leaf('w1:p1'), active: 'w1:p9', panes: [{ id: 'w1:p1', command: ['/bin/sh'], cwd: '/' }] }] }, ctx);
  assert.equal(bad.error?.code, 'invalid_params');
  const init = reduce(emptyState('s'), { type: 'server.init', cols: 80, rows: 24, command: ['/bin/sh'], cwd: '/' }, ctx);
  const twice = reduce(init.state, { type: 'server.restore', cols: 80, rows: 24, windows: [{ id: 'w1', layout: leaf('w1:p1'), active: 'w1:p1', panes: [{ id: 'w1:p1', command: ['/bin/sh'], cwd: '/' }] }] }, ctx);
  assert.equal(twice.error?.code, 'not_allowed');
});

test('panes moved by break-pane/join-pane keep their ids through a restore, and no new id collides with them', () => {
  // As live: w1:p4 was broken out into w2; w3 was closed after its w3:p1 joined w2.
  const windows = [
    { id: 'w1', layout: leaf('w1:p1'), active: 'w1:p1', panes: [{ id: 'w1:p1', command: ['/bin/sh'], cwd: '/' }] },
    { id: 'w2', layout: { kind: 'split' as const, axis: 'row' as const, ratio: 0.5, a: leaf('w1:p4'), b: leaf('w3:p1') }, active: 'w1:p4', panes: [{ id: 'w1:p4', command: ['/bin/sh'], cwd: '/' }, { id: 'w3:p1', command: ['/bin/sh'], cwd: '/' }] },
  ];
  const r = reduce(emptyState('s'), { type: 'server.restore', cols: 120, rows: 40, windows }, ctx);
  assert.equal(r.error, undefined, r.error?.message);
  assert.equal(r.state.panes['w1:p4'].window, 'w2');
  assert.equal(reduce(r.state, { type: 'pane.split', pane: 'w1:p1' }, ctx).result?.pane, 'w1:p5', 'not w1:p2..p4: p4 still exists elsewhere');
  assert.equal(reduce(r.state, { type: 'window.new' }, ctx).result?.window, 'w4', 'not w3: its pane w3:p1 still exists');
  assert.equal(inconsistency({ version: SNAPSHOT_VERSION, session: 's', windows: windows.map((w) => ({ ...w, panes: w.panes.map((p) => ({ ...p })) })) } as never), undefined);
  assert.match(inconsistency({ version: SNAPSHOT_VERSION, session: 's', windows: [windows[0], { ...windows[1], panes: [{ id: 'w1:p1', command: ['/bin/sh'], cwd: '/' }, windows[1].panes[1]] }] } as never) ?? '', /repeated|disagree/);
});

test('the resume table keeps known flags and builds each agent\'s resume form', () => {
  assert.deepEqual(resumeCommand('claude', ['claude', '--model', 'opus', '--permission-mode=plan', '-r', 'old', 'do a thing'], 'new-id')?.argv, ['claude', '--model', 'opus', '--permission-mode=plan', '--resume', 'new-id']);
  assert.deepEqual(resumeCommand('claude', ['claude', '--dangerously-skip-permissions'], undefined)?.argv, ['claude', '--dangerously-skip-permissions', '--continue']);
  assert.deepEqual(resumeCommand('codex', ['node', '/usr/lib/node_modules/@openai/codex/bin/codex.js', '-m', 'gpt-5', '--yolo', '-c', 'k=v', 'resume', 'old'], 'T1')?.argv, ['codex', 'resume', '-m', 'gpt-5', '--yolo', '-c', 'k=v', 'T1']);
  assert.deepEqual(resumeCommand('codex', ['codex'], undefined)?.argv, ['codex', 'resume', '--last']);
  assert.deepEqual(resumeCommand('gemini', ['node', '/x/node_modules/@google/gemini-cli/dist/index.js', '--yolo', '-p', 'hi', '--approval-mode', 'auto_edit'], 'G')?.argv, ['gemini', '--yolo', '--approval-mode', 'auto_edit', '--resume', 'G']);
  assert.deepEqual(resumeCommand('pi', ['pi', '--model', 'm', '--thinking', 'high', '--api-key', 'secret', '-c'], 'P')?.argv, ['pi', '--model', 'm', '--thinking', 'high', '--session', 'P']);
  assert.equal(resumeCommand('aider', ['aider'], 'x'), undefined);
  assert.equal(agentArgStart(['/bin/sh', '/tmp/bin/claude', '--model', 'x'], 'claude'), 2);
  // A session id that is not a plain id is never put on a command line: the latest conversation is resumed instead.
  assert.deepEqual(resumeCommand('claude', ['claude'], '--evil')?.argv, ['claude', '--continue']);
});

test('the snapshot JSON written in pieces parses back to the snapshot', () => {
  const s: Snapshot = {
    version: SNAPSHOT_VERSION, session: 'd', savedAt: 5, cwd: '/', size: { cols: 80, rows: 24 }, currentWindow: 'w2',
    windows: [
      { id: 'w1', layout: leaf('w1:p1'), active: 'w1:p1', panes: [{ id: 'w1:p1', command: ['sh'], cwd: '/', kind: 'shell' }] },
      { id: 'w2', name: 'n', layout: { kind: 'split', axis: 'col', ratio: 0.4, a: leaf('w2:p1'), b: leaf('w2:p2') }, active: 'w2:p2', panes: [{ id: 'w2:p1', command: ['sh'], cwd: '/', kind: 'shell' }, { id: 'w2:p2', command: ['sh'], cwd: '/x', kind: 'exited' }] },
    ],
  };
  assert.deepEqual(JSON.parse([...snapshotJson(s)].join('')), s);
});

test('the plan starts every pane as the user\'s shell and types agents into it', () => {
  const s: Snapshot = {
    version: SNAPSHOT_VERSION, session: 'd', savedAt: Date.UTC(2026, 0, 2, 3, 4), cwd: '/', size: { cols: 80, rows: 24 },
    windows: [{ id: 'w1', layout: leaf('w1:p1'), active: 'w1:p1', panes: [{ id: 'w1:p1', command: ['/usr/bin/zsh'], cwd: '/', kind: 'agent', inShell: true, foreground: ['claude', '--model', 'x'], agent: { name: 'claude', sessionId: 'abc' }, definition: 'rev' }] }],
  };
  const plan = planRestore(s, { shell: ['/bin/bash'], relaunch: [], isDir: () => true, fallbackCwd: '/' }, new Map([['w1:p1', ['a', 'b']]]));
  assert.deepEqual(plan.action.windows[0].panes[0].command, ['/bin/bash']);
  const p = plan.panes.get('w1:p1')!;
  assert.equal(p.typed, 'claude --model x --resume abc');
  assert.equal(p.definition, 'rev');
  assert.deepEqual(p.history, ['a', 'b']);
  assert.match(p.note, /resuming claude, conversation abc/);
});
