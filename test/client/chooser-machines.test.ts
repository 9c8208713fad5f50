// Other machines in the chooser (issue 31): read in the background, shown stale from the cache until they answer, and
// hostile answers (garbage, too big, none at all) cost only that machine's row, never a key.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ChooserController, chooserLines, type ChooserState, type MachineLister, waitingElsewhere, watchMachines } from '../../src/client/chooser/index.js';
import type { ChooserSession } from '../../src/client/chooser/index.js';
import { loadTheme } from '../../src/config/themes.js';
import { waitFor } from '../support/wait-for.js';

const pane = (id: string, state: string, name?: string) => ({ pane_id: id, window_id: 'w1', title: `t-${id}`, active: true, agent: { ...(name ? { name } : {}), state, hook_locked: !!name } });
const WINDOWS = { windows: [{ window_id: 'w1', index: 1, name: 'agents' }] };

type Answer = (method: string) => Promise<unknown>;

function lister(answers: Record<string, Answer | 'refuse'>, cache: Record<string, { at: number; panes: unknown[] }> = {}): MachineLister & { closed: string[]; remembered: string[] } {
  const closed: string[] = [];
  const remembered: string[] = [];
  return {
    closed,
    remembered,
    machines: () => Object.keys(answers).map((name) => ({ name })),
    lastKnown: (name) => cache[name],
    remember: (name) => remembered.push(name),
    open: async (name) => {
      const a = answers[name];
      if (a === 'refuse') throw new Error(`machine ${name} (h) is unreachable: Connection refused`);
      return { request: <T>(method: string) => a(method) as Promise<T>, close: () => closed.push(name) };
    },
  };
}

const good: Answer = async (m) => (m === 'window.list' ? WINDOWS : { panes: [pane('w1:p1', 'blocked', 'claude'), pane('w1:p2', 'idle')] });

function collect(l: MachineLister, deadlineMs = 300): { last: () => ChooserSession[]; stop: () => void } {
  let last: ChooserSession[] = [];
  const stop = watchMachines(async () => l, (s) => (last = s), { deadlineMs, now: () => 120_000 });
  return { last: () => last, stop };
}

test('a machine that answers is listed with its badges and needs-me; its listing is remembered', async () => {
  const l = lister({ build: good });
  const c = collect(l, 20_000);
  await waitFor(() => c.last()[0] && !c.last()[0].stale, { message: 'build to answer', timeoutMs: 15_000 });
  const s = c.last()[0];
  assert.equal(s.name, 'default@build');
  assert.equal(s.machine, 'build');
  assert.deepEqual(s.windows[0].panes.map((p) => [p.id, p.state, p.agent]), [['w1:p1', 'blocked', 'claude'], ['w1:p2', 'unknown', undefined]]);
  assert.deepEqual(l.remembered, ['build']);
  assert.deepEqual(l.closed, ['build'], 'the connection is closed once read');
  assert.match(waitingElsewhere(c.last()) ?? '', /w1:p1@build claude blocked .*castellan attach --machine build/);
  c.stop();
});

test('garbage, a listing too big, no answer, a refusal: each its own stale row with the cached state, the others unharmed', async () => {
  const big: Answer = async (m) => (m === 'window.list' ? WINDOWS : { panes: Array.from({ length: 10_001 }, (_, i) => pane(`w1:p${i}`, 'idle')) });
  const garbage: Answer = async (m) => (m === 'window.list' ? 'not an object \u001b[2J' : { panes: [{ pane_id: 7 }] });
  const never: Answer = () => new Promise(() => {});
  const cache = { never: { at: 60_000, panes: [pane('w1:p9', 'blocked', 'codex'), { hostile: true }, 'x'] } };
  const l = lister({ ok: good, garbage, big, never, down: 'refuse' }, cache);
  // The deadline is for the one that never answers; the others answer well within it even on a loaded machine.
  const c = collect(l, 2000);
  await waitFor(() => c.last().length === 5 && c.last().every((s) => !s.stale?.startsWith('connecting')), { message: 'every machine settled', timeoutMs: 15_000 });
  const by: Record<string, ChooserSession> = Object.fromEntries(c.last().map((s) => [s.machine, s]));
  assert.equal(by.ok.stale, undefined);
  assert.match(by.garbage.stale ?? '', /^never listed · it answered something that is not a castellan listing$/);
  assert.match(by.big.stale ?? '', /not a castellan listing/);
  assert.match(by.never.stale ?? '', /^last seen 1 min ago · no answer within 2 s$/);
  assert.deepEqual(by.never.windows.flatMap((w) => w.panes.map((p) => `${p.id}:${p.state}`)), ['w1:p9:blocked'], 'the cached pane, the hostile cache entries left out');
  assert.match(by.down.stale ?? '', /^never listed · .*unreachable: Connection refused/);
  assert.deepEqual(l.remembered, ['ok'], 'only a real listing is remembered');
  assert.match(waitingElsewhere(c.last()) ?? '', /w1:p9@never codex blocked \(stale\)/);
  c.stop();
});

test('the chooser lists machines beside this session, keys work while one never answers, stale rows say so, Enter names the command', async () => {
  let overlay: ChooserState | undefined;
  const said: string[] = [];
  const local = { windows: [{ window_id: 'w1', index: 1, name: 'main' }], panes: [pane('w1:p1', 'idle')] };
  const h = new ChooserController({
    api: { request: async <T>(m: string) => (m === 'window.list' ? { windows: local.windows } : m === 'pane.list' ? { panes: local.panes } : { lines: [] }) as T },
    get: () => overlay,
    setOverlay: (s) => (overlay = s),
    render: () => {},
    notify: (_l, t) => said.push(t),
    where: () => ({ session: 'here', window: 'w1' }),
    focus: () => {},
    machines: async () => lister({ build: good, slow: () => new Promise(() => {}) }, { slow: { at: Date.now() - 5000, panes: [pane('w1:p3', 'done', 'pi')] } }),
  });
  h.open('sessions');
  await waitFor(() => overlay && !overlay.loading && overlay.sessions.some((s) => s.machine === 'build' && !s.stale), { message: 'build listed', timeoutMs: 15_000 });
  const names = overlay!.sessions.map((s) => `${s.name}${s.stale ? ' (stale)' : ''}`);
  assert.deepEqual(names, ['here', 'default@build', 'default@slow (stale)']);
  // A key while `slow` is still connecting moves the cursor at once.
  const before = overlay!.cursor;
  h.input({ type: 'key', key: 'Down', raw: '' } as never, 24);
  assert.notEqual(overlay!.cursor, before);
  assert.equal(overlay!.cursor, 's:default@build');
  const { theme } = loadTheme('default', {});
  const text = chooserLines(overlay!, theme, 120, 24).map((r) => r.map((c) => c.text).join('')).join('\n');
  assert.match(text, /default@build +\(1 window\) +1 needs you/);
  assert.match(text, /default@slow +\(1 window\) +1 needs you +\[stale: connecting…, last seen \d+ s ago\]/);
  h.input({ type: 'key', key: 'Enter', raw: '' } as never, 24);
  assert.match(overlay!.message ?? '', /default@build is on machine build: detach \(prefix d\) and run {2}castellan attach --machine build/);
  // The needs-me narrowing reaches remote agents too.
  h.input({ type: 'key', key: 'n', raw: 'n' } as never, 24);
  const text2 = chooserLines(overlay!, theme, 120, 24).map((r) => r.map((c) => c.text).join('')).join('\n');
  assert.match(text2, /w1:p1 +t-w1:p1/);
  assert.match(text2, /w1:p3 +t-w1:p3/);
  h.input({ type: 'key', key: 'q', raw: 'q' } as never, 24);
  assert.equal(overlay, undefined);
  h.stop();
});

/** A remote that pushes events: `push` sends one, `drop` ends the link; `reads` counts listings. */
function liveRemote(): { lister: MachineLister; push: () => void; drop: () => void; set: (state: string) => void; reads: () => number; closed: () => number; subscribed: () => unknown[] } {
  let state = 'idle';
  let reads = 0;
  let closed = 0;
  const subscribed: unknown[] = [];
  const listeners = new Set<(m: { event?: unknown }) => void>();
  const closers = new Set<() => void>();
  const remote = {
    request: async <T>(method: string, params?: unknown): Promise<T> => {
      if (method === 'events.subscribe') {
        subscribed.push(params);
        return { subscribed: true } as T;
      }
      if (method === 'pane.list') reads++;
      return (method === 'window.list' ? WINDOWS : { panes: [pane('w1:p1', state, 'claude')] }) as T;
    },
    close: () => {
      closed++;
      for (const c of closers) c();
    },
    onMessage: (cb: (m: { event?: unknown }) => void) => {
      listeners.add(cb);
      return () => listeners.delete(cb);
    },
    onClosed: (cb: () => void) => void closers.add(cb),
  };
  return {
    lister: { machines: () => [{ name: 'build' }], lastKnown: () => undefined, remember: () => {}, open: async () => remote },
    push: () => listeners.forEach((l) => l({ event: { type: 'pane_agent_status_changed', pane: 'w1:p1' } })),
    drop: () => closers.forEach((c) => c()),
    set: (s) => (state = s),
    reads: () => reads,
    closed: () => closed,
    subscribed: () => subscribed,
  };
}

test('while the chooser is open a machine that answered is followed: a remote agent turning blocked shows, a burst is read once, a lost link turns stale, closing ends the link', async () => {
  const r = liveRemote();
  const c = collect(r.lister, 20_000);
  await waitFor(() => c.last()[0] && !c.last()[0].stale, { message: 'build to answer', timeoutMs: 15_000 });
  assert.equal(c.last()[0].windows[0].panes[0].state, 'idle');
  await waitFor(() => r.subscribed().length === 1, { message: 'the chooser to subscribe to build\'s events', timeoutMs: 5000 });
  assert.match(JSON.stringify(r.subscribed()[0]), /pane_agent_status_changed/);
  assert.equal(r.closed(), 0, 'the link stays open while the chooser is');

  r.set('blocked');
  const before = r.reads();
  for (let i = 0; i < 50; i++) r.push();
  await waitFor(() => c.last()[0].windows[0].panes[0].state === 'blocked', { message: 'the blocked badge to show', timeoutMs: 5000 });
  await new Promise((res) => setTimeout(res, 200));
  assert.ok(r.reads() - before <= 2, `a burst of 50 events read ${r.reads() - before} times`);
  assert.match(waitingElsewhere(c.last()) ?? '', /w1:p1@build claude blocked/);

  r.drop();
  await waitFor(() => /link lost/.test(c.last()[0].stale ?? ''), { message: 'the lost link to show', timeoutMs: 5000 });
  assert.equal(c.last()[0].windows[0].panes[0].state, 'blocked', 'the last listing stays, marked stale');
  c.stop();
  assert.equal(r.closed(), 1, 'stopping the chooser closes the followed link');
});
