// Choosing a pane of another session asks the client to move to that session's server; one that does not answer leaves it where it is.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ChooserController, type ChooserHost, type SwitchTarget } from '../../src/client/chooser/controller.js';
import { chooserInput, openChooser, withData, type ChooserState } from '../../src/client/chooser/input.js';
import { targetOf, buildRows, type ChooserSession } from '../../src/client/chooser/tree.js';
import { waitFor } from '../support/wait-for.js';

const sessions = (): ChooserSession[] => [
  { name: 'a', current: true, windows: [{ id: 'w1', index: 1, name: 'sh', current: true, panes: [{ id: 'w1:p1', title: 'bash', state: 'unknown', active: true }] }] },
  {
    name: 'b',
    current: false,
    socket: '/tmp/x/.config/castellan/b.sock',
    windows: [{ id: 'w2', index: 2, name: 'work', current: false, panes: [
      { id: 'w2:p1', title: 'vim', state: 'unknown', active: true },
      { id: 'w2:p3', title: 'claude', state: 'blocked', agent: 'claude', active: false },
    ] }],
  },
  { name: 'gone', current: false, unreachable: true, windows: [] },
];

const enter = { type: 'key' as const, key: 'Enter', raw: '\r' };

function harness(switchTo?: (t: SwitchTarget) => Promise<void>) {
  let overlay: ChooserState | undefined = { ...withData(openChooser('sessions'), sessions()), collapsed: new Set<string>() };
  const calls: { focus: string[]; switched: SwitchTarget[]; notices: string[] } = { focus: [], switched: [], notices: [] };
  const host: ChooserHost = {
    api: { request: () => Promise.reject(new Error('no server in this test')) },
    get: () => overlay,
    setOverlay: (s) => (overlay = s),
    render: () => {},
    notify: (_l, text) => calls.notices.push(text),
    where: () => ({ session: 'a', window: 'w1' }),
    focus: (p) => calls.focus.push(p),
    ...(switchTo ? { switchTo: (t: SwitchTarget) => (calls.switched.push(t), switchTo(t)) } : {}),
  };
  const c = new ChooserController(host);
  const choose = (key: string) => {
    overlay = { ...overlay!, cursor: key };
    c.input(enter, 30);
  };
  return { c, calls, choose, overlay: () => overlay };
}

test('targetOf names the other session\'s socket (where the client moves), never for this session', () => {
  const rows = buildRows(sessions(), { collapsed: new Set(), filter: '', needsMe: false });
  assert.deepEqual(targetOf(sessions(), rows.find((r) => r.key === 's:b/w2:p3')), { session: 'b', current: false, socket: '/tmp/x/.config/castellan/b.sock', window: 'w2', pane: 'w2:p3' });
  assert.deepEqual(targetOf(sessions(), rows.find((r) => r.key === 's:a/w1:p1')), { session: 'a', current: true, window: 'w1', pane: 'w1:p1' });
});

test('Enter on a pane of another session switches to it: session, socket, window and pane', async () => {
  const h = harness(() => Promise.resolve());
  h.choose('s:b/w2:p3');
  assert.deepEqual(h.calls.switched, [{ session: 'b', socket: '/tmp/x/.config/castellan/b.sock', window: 'w2', pane: 'w2:p3' }]);
  assert.deepEqual(h.calls.focus, [], 'nothing is focused on this server');
  assert.match(h.overlay()?.message ?? '', /switching to session b/);
  // A session row goes to that session's current (here: first) window and its active pane.
  const s = harness(() => Promise.resolve());
  s.choose('s:b');
  assert.deepEqual(s.calls.switched, [{ session: 'b', socket: '/tmp/x/.config/castellan/b.sock', window: 'w2', pane: 'w2:p1' }]);
});

test('a second Enter while the switch is under way does not start another', async () => {
  let release!: () => void;
  const h = harness(() => new Promise<void>((r) => (release = r)));
  h.choose('s:b/w2:p3');
  h.choose('s:b/w2:p1');
  assert.equal(h.calls.switched.length, 1);
  release();
  await waitFor(() => h.calls.switched.length === 1, { timeoutMs: 1000 });
});

test('a target server that does not answer: a message, the chooser stays, the client stays attached here', async () => {
  const h = harness(() => Promise.reject(new Error('connect ENOENT')));
  h.choose('s:b/w2:p3');
  await waitFor(() => /does not answer/.test(h.overlay()?.message ?? ''), { timeoutMs: 2000, message: 'the failure is shown' });
  assert.match(h.overlay()!.message!, /session b does not answer: staying in session a \(connect ENOENT\)/);
  assert.equal(h.overlay()!.kind, 'chooser', 'the chooser is still open to pick another');
  // After a failure another try is allowed.
  h.choose('s:b/w2:p1');
  assert.equal(h.calls.switched.length, 2);
});

test('an unreachable session, or a client that cannot switch: a message, no switch', () => {
  const h = harness(() => Promise.resolve());
  h.choose('s:gone');
  assert.deepEqual(h.calls.switched, []);
  assert.match(h.overlay()?.message ?? '', /session gone did not answer: staying in session a/);
  const n = harness();
  n.choose('s:b/w2:p3');
  assert.match(n.overlay()?.message ?? '', /staying in session a/);
});

test('this session\'s pane is focused here, as before', () => {
  const h = harness(() => Promise.resolve());
  h.choose('s:a/w1:p1');
  assert.deepEqual(h.calls.focus, ['w1:p1']);
  assert.deepEqual(h.calls.switched, []);
  assert.equal(h.overlay(), undefined, 'the chooser closes');
});

test('a filter typed before the tree arrived puts the cursor on its first matching pane, not a session row', () => {
  let s = openChooser('sessions');
  for (const k of ['/', 'c', 'l', 'a', 'u']) s = chooserInput(s, { type: 'key', key: k, raw: k }, 30).state!;
  s = withData(s, sessions());
  assert.equal(s.cursor, 's:b/w2:p3');
  const r = chooserInput(s, enter, 30);
  assert.equal(r.kind === 'choose' && r.target.pane, 'w2:p3');
});

test('no refresh runs before the first load has answered (it would put the cursor on a session row)', (t) => {
  t.mock.timers.enable({ apis: ['setInterval'] });
  const requests: string[] = [];
  let overlay: ChooserState | undefined;
  const c = new ChooserController({
    api: { request: (m: string) => (requests.push(m), new Promise<never>(() => {})) },
    get: () => overlay,
    setOverlay: (s) => (overlay = s),
    render: () => {},
    notify: () => {},
    where: () => ({ session: 'a', window: 'w1' }),
    focus: () => {},
  });
  c.open('sessions');
  const first = requests.length;
  t.mock.timers.tick(3000); // three refresh periods, with nothing answering
  c.stop();
  assert.equal(requests.length, first, 'the first load still pending: no second read');
});
