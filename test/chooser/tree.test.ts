// The chooser's pure parts: building the tree, folds, filtering, "needs me", and its keys and mouse.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildRows, needsMe, targetOf, type ChooserSession } from '../../src/client/chooser/tree.js';
import { chooserGeometry, chooserInput, openChooser, rowsOf, withData, type ChooserState } from '../../src/client/chooser/input.js';
import type { InputEvent } from '../../src/input/keys.js';

const sessions = (): ChooserSession[] => [
  {
    name: 'work',
    current: true,
    windows: [
      { id: 'w1', index: 1, name: 'agents', current: true, panes: [
        { id: 'w1:p1', title: 'bash', state: 'unknown', active: false },
        { id: 'w1:p2', title: 'claude', state: 'blocked', agent: 'claude', message: 'needs permission to rm -rf', active: true },
      ] },
      { id: 'w2', index: 2, name: 'build', current: false, panes: [
        { id: 'w2:p1', title: 'codex', state: 'done', agent: 'codex', active: true },
        { id: 'w2:p2', title: 'codex', state: 'working', agent: 'codex', active: false },
        { id: 'w2:p3', title: 'old', state: 'done', agent: 'codex', active: false, exited: true },
      ] },
    ],
  },
  { name: 'other', current: false, windows: [{ id: 'w1', index: 1, name: 'misc', current: false, panes: [{ id: 'w1:p1', title: 'vim', state: 'unknown', active: true }] }] },
];

const key = (k: string): InputEvent => ({ type: 'key', key: k, raw: k });
const click = (y: number): InputEvent => ({ type: 'mouse', action: 'press', button: 0, x: 3, y, shift: false, meta: false, ctrl: false, raw: '' });

function opened(level: 'sessions' | 'windows'): ChooserState {
  return withData(openChooser(level), sessions());
}

function press(s: ChooserState, ...ks: string[]): ChooserState {
  for (const k of ks) {
    const r = chooserInput(s, key(k), 30);
    assert.equal(r.kind, 'update');
    assert.ok(r.state, `closed on ${k}`);
    s = r.state!;
  }
  return s;
}

test('needs me: blocked, or done and not seen; never an exited pane or a working one', () => {
  assert.equal(needsMe({ state: 'blocked' }), true);
  assert.equal(needsMe({ state: 'done' }), true);
  assert.equal(needsMe({ state: 'working' }), false);
  assert.equal(needsMe({ state: 'idle' }), false);
  assert.equal(needsMe({ state: 'done', exited: true }), false);
});

test('levels: prefix s opens on folded sessions, prefix w on the current window with windows folded', () => {
  const s = opened('sessions');
  assert.deepEqual(rowsOf(s).map((r) => r.key), ['s:work', 's:other']);
  assert.equal(s.cursor, 's:work');
  assert.equal(rowsOf(s)[0].needs, 2, 'two panes of the folded session need the user');
  const w = opened('windows');
  assert.deepEqual(rowsOf(w).map((r) => r.key), ['s:work', 's:work/w1', 's:work/w2', 's:other', 's:other/w1']);
  assert.equal(w.cursor, 's:work/w1');
});

test('right unfolds, left folds and then climbs to the parent', () => {
  let s = opened('windows');
  s = press(s, 'Right');
  assert.deepEqual(rowsOf(s).slice(0, 4).map((r) => r.key), ['s:work', 's:work/w1', 's:work/w1:p1', 's:work/w1:p2']);
  s = press(s, 'j', 'j');
  assert.equal(s.cursor, 's:work/w1:p2');
  s = press(s, 'Left');
  assert.equal(s.cursor, 's:work/w1', 'left on a pane goes to its window');
  s = press(s, 'Left');
  assert.equal(rowsOf(s).some((r) => r.key === 's:work/w1:p1'), false, 'then folds it');
});

test('filter: / then words narrow to matching panes (title, agent, state, message), unfolded, cursor on the first pane', () => {
  let s = press(opened('sessions'), '/', 'r', 'm', 'Space', '-', 'r', 'f');
  assert.equal(s.filtering, true);
  assert.deepEqual(rowsOf(s).map((r) => r.key), ['s:work', 's:work/w1', 's:work/w1:p2']);
  assert.equal(s.cursor, 's:work/w1:p2');
  const r = chooserInput(s, key('Enter'), 30);
  assert.equal(r.kind, 'choose');
  assert.deepEqual(r.kind === 'choose' && r.target, { session: 'work', current: true, window: 'w1', pane: 'w1:p2' });
  // Letters edit the filter while typing it: q does not close.
  s = press(s, 'BSpace', 'BSpace', 'BSpace', 'BSpace', 'BSpace', 'BSpace', 'c', 'o', 'd', 'e', 'x', 'Space', 'w', 'o', 'r', 'k', 'i', 'n', 'g');
  assert.deepEqual(rowsOf(s).filter((x) => x.kind === 'pane').map((x) => x.key), ['s:work/w2:p2']);
  s = press(s, 'Escape');
  assert.equal(s.filter, '');
  assert.equal(s.filtering, false);
  assert.equal(chooserInput(s, key('q'), 30).state, undefined, 'q closes once not filtering');
});

test('a window name match shows all of its panes; nothing matching shows no rows and Enter does nothing', () => {
  const s = press(opened('sessions'), '/', 'b', 'u', 'i', 'l', 'd');
  assert.deepEqual(rowsOf(s).filter((x) => x.kind === 'pane').map((x) => x.key), ['s:work/w2:p1', 's:work/w2:p2', 's:work/w2:p3']);
  const none = press(opened('sessions'), '/', 'z', 'z', 'z');
  assert.deepEqual(rowsOf(none), []);
  assert.equal(chooserInput(none, key('Enter'), 30).kind, 'update');
});

test('n toggles needs-me: only blocked and unseen-done panes, across sessions', () => {
  let s = press(opened('windows'), 'n');
  assert.deepEqual(rowsOf(s).filter((x) => x.kind === 'pane').map((x) => x.key), ['s:work/w1:p2', 's:work/w2:p1']);
  assert.equal(s.cursor, 's:work/w1:p2');
  assert.equal(rowsOf(s).some((r) => r.session === 'other'), false);
  s = press(s, 'n');
  assert.equal(s.needsMe, false);
  assert.equal(buildRows(sessions(), { collapsed: new Set(), filter: '', needsMe: false }).filter((r) => r.kind === 'pane').length, 6);
});

test('targets: a window goes to its active pane, a session to its current window; another session is marked so', () => {
  const rows = buildRows(sessions(), { collapsed: new Set(), filter: '', needsMe: false });
  assert.deepEqual(targetOf(sessions(), rows.find((r) => r.key === 's:work/w2')), { session: 'work', current: true, window: 'w2', pane: 'w2:p1' });
  assert.deepEqual(targetOf(sessions(), rows.find((r) => r.key === 's:work')), { session: 'work', current: true, window: 'w1', pane: 'w1:p2' });
  assert.equal(targetOf(sessions(), rows.find((r) => r.key === 's:other/w1:p1'))?.current, false);
});

test('mouse: a click selects its row, a second click on it soon after chooses it; the wheel scrolls', () => {
  const s = opened('windows');
  const { listTop } = chooserGeometry(30);
  const r1 = chooserInput(s, click(listTop + 2), 30, 1000);
  assert.equal(r1.kind, 'update');
  assert.equal(r1.state?.cursor, 's:work/w2');
  const late = chooserInput(r1.state!, click(listTop + 2), 30, 1000 + 5000);
  assert.equal(late.kind, 'update', 'too slow for a double click');
  const r2 = chooserInput(late.state!, click(listTop + 2), 30, 6100);
  assert.equal(r2.kind, 'choose');
  assert.equal(r2.kind === 'choose' && r2.target.pane, 'w2:p1');
  const off = chooserInput(s, click(29), 30, 1000);
  assert.equal(off.state?.cursor, s.cursor, 'a click below the list selects nothing');
});

test('a refresh keeps the folds and the cursor; a row that went away moves the cursor to a neighbour', () => {
  let s = press(opened('windows'), 'Right', 'j', 'j');
  assert.equal(s.cursor, 's:work/w1:p2');
  const next = sessions();
  next[0].windows[0].panes.pop();
  s = withData(s, next);
  assert.ok(rowsOf(s).some((r) => r.key === 's:work/w1:p1'), 'w1 still unfolded');
  assert.ok(s.cursor && rowsOf(s).some((r) => r.key === s.cursor));
});

test('geometry: a preview only when there is room', () => {
  assert.deepEqual(chooserGeometry(44), { listTop: 1, listRows: 20, previewRows: 21 });
  assert.equal(chooserGeometry(8).previewRows, 0);
  assert.ok(chooserGeometry(1).listRows >= 1);
});
