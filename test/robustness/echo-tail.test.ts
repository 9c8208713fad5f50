// The echo's tail under a flood: while the user types into one pane, the other panes' output waits for bounded turns
// (never parsed at once in a run of back-to-back reads), only that pane's echo ends the wait, and frame ticks wait for it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ParseScheduler, type SyncParser } from '../../src/server/parse-feed.js';
import { ClientLink } from '../../src/server/client-link.js';
import { emptyState, reduce } from '../../src/core/reducer.js';
import type { State } from '../../src/core/types.js';
import type { PaneRuntime } from '../../src/server/pane-runtime.js';
import { Screen } from '../../src/server/screen.js';
import { waitFor } from '../support/wait-for.js';

/** A scheduler whose turns and held-turn timers run only when the test says, on a clock that parsing advances (1 ms a byte). */
function harness() {
  let clock = 0;
  const deferred: Array<() => void> = [];
  const timers: Array<{ due: number; fn: () => void; cancelled: boolean }> = [];
  const sched = new ParseScheduler({
    pieceBytes: 8, inputPieceBytes: 4, turnMs: 100, inputTurnMs: 6, interactiveMs: 500, echoWaitMs: 1,
    now: () => clock, defer: (fn) => deferred.push(fn),
    later: (fn, ms) => {
      const t = { due: clock + ms, fn, cancelled: false };
      timers.push(t);
      return () => void (t.cancelled = true);
    },
  });
  const parser = (): SyncParser & { text: string } => {
    const p = { text: '', parse(d: Uint8Array | string) { const s = typeof d === 'string' ? d : Buffer.from(d).toString('latin1'); p.text += s; clock += s.length; } };
    return p;
  };
  const drain = () => {
    for (let i = 0; i < 10_000 && (deferred.length || timers.some((t) => !t.cancelled)); i++) {
      const fn = deferred.shift();
      if (fn) fn();
      else {
        const t = timers.find((x) => !x.cancelled)!;
        t.cancelled = true;
        clock = Math.max(clock, t.due);
        t.fn();
      }
    }
  };
  return { sched, parser, deferred, timers, drain, now: () => clock, advance: (ms: number) => void (clock += ms), bytes: (s: string) => Buffer.from(s, 'latin1') };
}

test('while the user types into one pane, another pane\'s output is queued for turns, not parsed in the read that brought it', () => {
  const h = harness();
  const typed = h.parser();
  const flood = h.parser();
  const tf = h.sched.feed(typed);
  const ff = h.sched.feed(flood);
  ff.push(h.bytes('before'));
  assert.equal(flood.text, 'before', 'nobody typing: parsed at once');
  tf.typed();
  // A run of reads, as libuv delivers a flooding pty's: each one only queues.
  for (let i = 0; i < 32; i++) ff.push(h.bytes(`r${String(i).padStart(2, '0')}.`));
  assert.equal(flood.text, 'before', 'no read parsed at once while the user types elsewhere');
  assert.equal(ff.queued, 32 * 4);
  tf.push(h.bytes('k'));
  assert.equal(typed.text, 'k', 'the typed pane\'s echo is still parsed at once');
  // Turns are short while typing: a turn parses about inputTurnMs worth (6 bytes at 1 ms a byte), in 4-byte pieces.
  const fn = h.deferred.shift()!;
  const before = flood.text.length;
  fn();
  assert.ok(flood.text.length - before <= 8, `one turn parsed ${flood.text.length - before} bytes`);
  h.drain();
  let want = 'before';
  for (let i = 0; i < 32; i++) want += `r${String(i).padStart(2, '0')}.`;
  assert.equal(flood.text, want, 'every byte, in order');
  h.advance(500);
  ff.push(h.bytes('after'));
  assert.ok(flood.text.endsWith('after'), 'once typing stops, output is parsed at once again');
});

test('output of another pane finding its queue idle does not end the wait for the typed pane\'s echo', () => {
  const h = harness();
  const typed = h.parser();
  const other = h.parser();
  const flood = h.parser();
  const tf = h.sched.feed(typed);
  const of = h.sched.feed(other);
  const ff = h.sched.feed(flood);
  ff.push(h.bytes('z'.repeat(40)));
  const parsed = flood.text.length;
  tf.typed();
  assert.ok(h.sched.echoDueIn() > 0, 'an echo is awaited');
  h.deferred.shift()!();
  assert.equal(flood.text.length, parsed, 'the turn after the key is held');
  of.push(h.bytes('o'));
  assert.equal(h.timers.filter((t) => !t.cancelled).length, 1, 'another pane\'s output leaves the hold in place');
  assert.ok(h.sched.echoDueIn() > 0);
  tf.push(h.bytes('k'));
  assert.equal(h.sched.echoDueIn(), 0, 'the typed pane\'s echo ends it');
  h.drain();
  assert.equal(flood.text, 'z'.repeat(40));
  assert.equal(other.text, 'o');
});

test('a frame tick due while a key\'s echo is awaited waits for it (bounded), then goes out', async () => {
  let st: State = emptyState('main');
  const act = (a: Parameters<typeof reduce>[1], client?: string) => (st = reduce(st, a, { client, now: Date.now(), defaultCommand: ['/bin/sh'], defaultCwd: '/tmp' }).state);
  act({ type: 'server.init', cols: 80, rows: 24, command: ['/bin/sh'], cwd: '/tmp' });
  act({ type: 'client.attach', client: 'c1', cols: 82, rows: 27 });
  const paneId = Object.keys(st.panes)[0];
  const screen = new Screen({ cols: 80, rows: 24, scrollback: 10 });
  const rt = { screen, size: { cols: 80, rows: 24 }, exited: false, wantsMouse: () => false } as unknown as PaneRuntime;
  const sent: unknown[] = [];
  const conn = { closed: false, clientId: 'c1', send: (m: unknown) => void sent.push(m), onClose: () => {} };
  let due = 0;
  let asked = 0;
  const link = new ClientLink('c1', conn as never, () => 5, { state: () => st, pane: () => rt, copyStyles: () => ({}) as never, copyKeys: () => 'vi' }, {
    echoDueIn: () => (asked++, due),
  });
  try {
    link.flush();
    const first = sent.length;
    screen.parseNow('background');
    due = 20;
    link.schedule(false, paneId);
    await waitFor(() => asked >= 3, { timeoutMs: 5000, message: 'the tick to find the echo awaited and wait again' });
    assert.equal(sent.length, first, 'no frame while the echo is awaited');
    due = 0;
    await waitFor(() => sent.length > first, { timeoutMs: 5000, message: 'the tick to go out once the echo is no longer awaited' });
  } finally {
    link.dispose();
    screen.dispose();
  }
});

test('typing without pause (a key before every turn, none echoed) does not starve another pane\'s output', () => {
  const h = harness();
  const typed = h.parser();
  const flood = h.parser();
  const tf = h.sched.feed(typed);
  const ff = h.sched.feed(flood);
  tf.typed();
  ff.push(h.bytes('q'.repeat(600)));
  let steps = 0;
  while (flood.text.length < 600 && steps++ < 1000) {
    tf.typed();
    const fn = h.deferred.shift();
    if (fn) fn();
    else {
      // A held turn: its timer (echoWaitMs) runs it.
      const t = h.timers.find((x) => !x.cancelled)!;
      t.cancelled = true;
      h.advance(Math.max(0, t.due - h.now()));
      t.fn();
    }
  }
  assert.equal(flood.text, 'q'.repeat(600), `all parsed, in ${steps} steps`);
  // 1 ms a byte and a 6 ms turn while typing: about 100 turns, each after a held wait of echoWaitMs at most.
  assert.ok(steps <= 400, `${steps} steps`);
});

test('a closed pane that was typed into favours nothing: the others\' output is parsed at once again, and it is not kept', () => {
  const h = harness();
  const gone = h.sched.feed(h.parser());
  const other = h.parser();
  const of = h.sched.feed(other);
  const text = () => other.text;
  gone.typed();
  of.push(h.bytes('queued'));
  assert.equal(text(), '', 'queued while the user types into the other pane');
  gone.close();
  of.push(h.bytes('+now'));
  h.drain();
  assert.equal(text(), 'queued+now', 'every byte, in order');
  of.push(h.bytes('+at-once'));
  assert.ok(text().endsWith('+at-once'), 'parsed at once: the closed pane no longer defers it (nor holds its screen)');
});
