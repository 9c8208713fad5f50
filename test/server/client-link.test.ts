// A client's frames: a keystroke's echo goes out in the same turn of the event loop (no timer, no setImmediate),
// carrying only the changed row of the focused pane; output without a key waits for the frame clock.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { emptyState, reduce } from '../../src/core/reducer.js';
import type { AnyAction } from '../../src/core/actions.js';
import type { State } from '../../src/core/types.js';
import { ClientLink, FLOOD_BYTES, FLOOD_FRAME_MS } from '../../src/server/client-link.js';
import type { PaneRuntime } from '../../src/server/pane-runtime.js';
import { Screen } from '../../src/server/screen.js';
import type { Frame } from '../../src/api/frame.js';

function setup(frameMs = 1000, bytesIn: () => number = () => 0) {
  let st: State = emptyState('main');
  let now = 1000;
  const act = (a: AnyAction, client?: string) => {
    const r = reduce(st, a, { client, now: ++now, defaultCommand: ['/bin/sh'], defaultCwd: '/tmp' });
    assert.equal(r.error, undefined);
    st = r.state;
  };
  act({ type: 'server.init', cols: 80, rows: 24, command: ['/bin/sh'], cwd: '/tmp' });
  act({ type: 'client.attach', client: 'c1', cols: 82, rows: 27 });
  const paneId = Object.keys(st.panes)[0];
  const screens = new Map<string, Screen>();
  const rt = (id: string) => {
    let s = screens.get(id);
    if (!s) screens.set(id, (s = new Screen({ cols: 80, rows: 24, scrollback: 100 })));
    return { screen: s, size: { cols: 80, rows: 24 }, exited: false, wantsMouse: () => false, get bytesIn() { return bytesIn(); } } as unknown as PaneRuntime;
  };
  const sent: Frame[] = [];
  const conn = { closed: false, clientId: 'c1', send: (m: unknown) => void sent.push((m as { frame: Frame }).frame), onClose: () => {} };
  const link = new ClientLink('c1', conn as never, () => frameMs, {
    state: () => st,
    pane: (id) => rt(id),
    copyStyles: () => ({}) as never,
    copyKeys: () => 'vi',
  });
  return { link, sent, paneId, screen: rt(paneId).screen, dispose: () => { link.dispose(); for (const s of screens.values()) s.dispose(); } };
}

const write = (s: Screen, d: string) => new Promise<void>((r) => s.write(d, r));

test('the echo of a key is sent before the event loop turns (no timer, no setImmediate), with only the changed row', async () => {
  const h = setup();
  try {
    h.link.flush();
    assert.equal(h.sent.length, 1, 'the first full frame');
    await write(h.screen, 'one\r\ntwo\r\n$ ');
    h.link.flush();
    const before = h.sent.length;
    // Queued first, so it runs before anything the link might queue with setImmediate or a timer.
    let sentBeforeImmediate = -1;
    const checked = new Promise<void>((r) => setImmediate(() => { sentBeforeImmediate = h.sent.length; r(); }));
    h.link.noteInput();
    h.screen.parseNow('x');
    h.link.schedule(false, h.paneId);
    await checked;
    assert.equal(sentBeforeImmediate, before + 1, 'the echo frame went out before setImmediate callbacks ran');
    const f = h.sent.at(-1)!;
    assert.deepEqual(f.panes[h.paneId].lines, [[2, '$ x']]);
    assert.equal(f.cursor?.x, 3);
  } finally {
    h.dispose();
  }
});

test('output with no key typed waits for the frame clock', async () => {
  const h = setup(40);
  try {
    h.link.flush();
    const before = h.sent.length;
    await write(h.screen, 'background output');
    h.link.schedule(false, h.paneId);
    await new Promise<void>((r) => setImmediate(r));
    assert.equal(h.sent.length, before, 'not sent at once');
    const t0 = Date.now();
    while (h.sent.length === before && Date.now() - t0 < 5000) await new Promise((r) => setTimeout(r, 5));
    assert.equal(h.sent.length, before + 1, 'sent on the tick');
  } finally {
    h.dispose();
  }
});

test('while a visible pane floods (FLOOD_BYTES read between two frames), regular frames slow to FLOOD_FRAME_MS; a key still echoes at once', async () => {
  let bytesIn = 0;
  const h = setup(20, () => bytesIn);
  const sendsAt: number[] = [];
  const waitSent = async (n: number) => {
    const t0 = Date.now();
    while (h.sent.length < n && Date.now() - t0 < 5000) await new Promise((r) => setTimeout(r, 2));
    assert.equal(h.sent.length, n, 'a frame was sent');
    sendsAt.push(performance.now());
  };
  try {
    h.link.flush(); // the first frame: counting starts
    bytesIn += FLOOD_BYTES * 4;
    await write(h.screen, 'flood 0');
    h.link.flush(); // this one sees the flood
    sendsAt.push(performance.now());
    await write(h.screen, 'flood 1');
    h.link.schedule(false, h.paneId);
    await waitSent(3);
    assert.ok(sendsAt[1] - sendsAt[0] >= FLOOD_FRAME_MS - 5, `the next frame waited ${Math.round(sendsAt[1] - sendsAt[0])} ms (frame_ms is 20)`);
    // A key's echo during the flood is urgent: out before the event loop turns, not on the slowed clock.
    h.link.noteInput();
    h.screen.parseNow('x');
    h.link.schedule(true);
    await new Promise<void>((r) => setImmediate(r));
    assert.equal(h.sent.length, 4, 'the echo went out at once');
    // The flood is over: the frame that saw little output puts the clock back to frame_ms.
    bytesIn += 100;
    await write(h.screen, '\r\nquiet 1');
    h.link.flush();
    sendsAt.push(performance.now());
    await write(h.screen, '\r\nquiet 2');
    h.link.schedule(false, h.paneId);
    await waitSent(6);
  } finally {
    h.dispose();
  }
});
