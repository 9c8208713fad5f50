// The parse scheduler: output that finds its queue empty is parsed at once; a flood is parsed in pieces, in turns, in order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ParseScheduler, type SyncParser } from '../../src/server/parse-feed.js';

/** A scheduler whose turns run only when the test says (deferred turns queue up) and whose clock parsing advances. */
function harness(o: { pieceBytes?: number; turnMs?: number; inputTurnMs?: number; interactiveMs?: number; msPerByte?: number; inputPieceBytes?: number; echoWaitMs?: number } = {}) {
  let clock = 0;
  const deferred: Array<() => void> = [];
  /** Held turns' timers: [due, fn, cancelled]. */
  const timers: Array<{ due: number; fn: () => void; cancelled: boolean }> = [];
  const later = (fn: () => void, ms: number) => {
    const t = { due: clock + ms, fn, cancelled: false };
    timers.push(t);
    return () => void (t.cancelled = true);
  };
  const sched = new ParseScheduler({
    pieceBytes: o.pieceBytes ?? 4, turnMs: o.turnMs ?? 10, inputTurnMs: o.inputTurnMs, interactiveMs: o.interactiveMs,
    inputPieceBytes: o.inputPieceBytes, echoWaitMs: o.echoWaitMs ?? 0, now: () => clock, defer: (fn) => deferred.push(fn), later,
  });
  const log: string[] = [];
  const parser = (name: string): SyncParser & { text: string } => {
    const p = {
      text: '',
      parse(d: Uint8Array | string) {
        const s = typeof d === 'string' ? d : Buffer.from(d).toString('latin1');
        p.text += s;
        log.push(`${name}:${s}`);
        clock += s.length * (o.msPerByte ?? 1);
      },
    };
    return p;
  };
  const runTurn = () => {
    const fn = deferred.shift();
    assert.ok(fn, 'a turn was scheduled');
    fn();
  };
  return { sched, parser, log, deferred, timers, runTurn, now: () => clock, advance: (ms: number) => void (clock += ms), bytes: (s: string) => Buffer.from(s, 'latin1') };
}

test('output that finds its queue empty is parsed before push() returns, up to one piece', () => {
  const h = harness({ pieceBytes: 4 });
  const p = h.parser('a');
  const f = h.sched.feed(p);
  f.push(h.bytes('ab'));
  assert.equal(p.text, 'ab');
  assert.equal(h.deferred.length, 0, 'nothing left for a turn');
  f.push(h.bytes('0123456789'));
  assert.equal(p.text, 'ab0123', 'one piece at once');
  assert.equal(f.queued, 6);
  assert.equal(h.deferred.length, 1, 'the rest waits for a turn');
});

test('a turn stops after turnMs and the next one is scheduled; order and bytes are kept across pieces', () => {
  const h = harness({ pieceBytes: 4, turnMs: 10 });
  const p = h.parser('flood');
  const f = h.sched.feed(p);
  const data = 'abcdefghijklmnopqrstuvwxyz'.repeat(4);
  f.push(h.bytes(data));
  let turns = 0;
  while (h.deferred.length) {
    const before = p.text.length;
    h.runTurn();
    turns++;
    // 1 ms per byte, 4-byte pieces: a turn ends at the first piece that reaches 10 ms.
    assert.ok(p.text.length - before <= 12, `turn ${turns} parsed ${p.text.length - before} bytes`);
  }
  assert.equal(p.text, data);
  assert.equal(f.queued, 0);
  assert.ok(turns >= 8, `${turns} turns`);
});

test('a flooding pane does not delay another pane: its output is parsed at once, and in turns it gets every other piece', () => {
  const h = harness({ pieceBytes: 4, turnMs: 1000 });
  const flood = h.parser('flood');
  const echo = h.parser('echo');
  const ff = h.sched.feed(flood);
  const fe = h.sched.feed(echo);
  ff.push(h.bytes('F'.repeat(400)));
  assert.equal(ff.queued, 396);
  // Between two turns the event loop reads the other pane's echo: parsed right there, not after the flood.
  fe.push(h.bytes('x'));
  assert.equal(echo.text, 'x');
  // Both busy: they alternate piece by piece.
  fe.push(h.bytes('y'.repeat(12)));
  assert.equal(echo.text, 'xyyyy');
  h.log.length = 0;
  h.runTurn();
  assert.deepEqual(h.log.slice(0, 6), ['flood:FFFF', 'echo:yyyy', 'flood:FFFF', 'echo:yyyy', 'flood:FFFF', 'flood:FFFF']);
  assert.equal(echo.text, 'x' + 'y'.repeat(12));
  assert.equal(flood.text.length, 400);
});

test('then() runs once everything pushed before it is parsed, and not before', () => {
  const h = harness({ pieceBytes: 4, turnMs: 3 });
  const p = h.parser('a');
  const f = h.sched.feed(p);
  let done = 0;
  f.then(() => done++);
  assert.equal(done, 1, 'nothing waiting: at once');
  f.push(h.bytes('0123456789'));
  f.push('notice');
  f.then(() => {
    done++;
    assert.ok(p.text.endsWith('notice'));
  });
  assert.equal(done, 1);
  while (h.deferred.length) h.runTurn();
  assert.equal(done, 2);
  assert.equal(p.text, '0123456789notice');
});

test('onParsed reports what is still queued (flow control), and close() drops the rest without calling back', () => {
  const h = harness({ pieceBytes: 4, turnMs: 1000 });
  const seen: number[] = [];
  const p = h.parser('a');
  const f = h.sched.feed(p, (q) => seen.push(q));
  f.push(h.bytes('0123456789ab'));
  assert.deepEqual(seen, [8]);
  let called = false;
  f.then(() => (called = true));
  f.close();
  assert.equal(f.queued, 0);
  h.runTurn();
  assert.equal(p.text, '0123');
  assert.equal(called, false);
  f.push(h.bytes('more'));
  assert.equal(p.text, '0123', 'a closed feed takes nothing');
});

test('a parser that pushes more output while parsing (an answer written back) cannot recurse into itself', () => {
  const h = harness({ pieceBytes: 4, turnMs: 1000 });
  const order: string[] = [];
  let depth = 0;
  let f!: ReturnType<typeof h.sched.feed>;
  f = h.sched.feed({
    parse(d) {
      depth++;
      const s = Buffer.from(d as Uint8Array).toString('latin1');
      order.push(`${s}@${depth}`);
      if (s === 'ab') f.push(Buffer.from('cd', 'latin1'));
      depth--;
    },
  });
  f.push(Buffer.from('ab', 'latin1'));
  // 'cd' found the queue busy (ab was being parsed): it waits for a turn instead of nesting.
  while (h.deferred.length) h.runTurn();
  assert.deepEqual(order, ['ab@1', 'cd@1']);
});

test('while the user types, turns are shorter (inputTurnMs), and back to turnMs once interactiveMs has passed', () => {
  const s2 = harness({ pieceBytes: 1, turnMs: 10, inputTurnMs: 2, interactiveMs: 100 });
  const p = s2.parser('flood');
  const f = s2.sched.feed(p);
  f.push(s2.bytes('x'.repeat(200)));
  const perTurn = () => {
    const before = p.text.length;
    s2.runTurn();
    return p.text.length - before;
  };
  assert.equal(perTurn(), 10, 'no input: a 10 ms turn (1 ms per byte)');
  s2.sched.noteInput();
  assert.equal(perTurn(), 2, 'just after a key: a 2 ms turn');
  assert.equal(perTurn(), 2);
  s2.advance(100);
  assert.equal(perTurn(), 10, 'interactiveMs later: full turns again');
  while (s2.deferred.length) s2.runTurn();
  assert.equal(p.text, 'x'.repeat(200), 'every byte parsed, in order');
});

test('while the user types, pieces are shorter too (inputPieceBytes): a turn overshoots its budget by less', () => {
  const h = harness({ pieceBytes: 16, inputPieceBytes: 4, turnMs: 10, inputTurnMs: 1, interactiveMs: 100 });
  const p = h.parser('flood');
  h.sched.feed(p).push(h.bytes('y'.repeat(100)));
  const perTurn = () => {
    const before = p.text.length;
    h.runTurn();
    return p.text.length - before;
  };
  assert.equal(perTurn(), 16, 'no input: one 16-byte piece already spends the 10 ms budget');
  h.sched.noteInput();
  assert.equal(perTurn(), 4, 'typing: a 1 ms budget ends after one 4-byte piece, not a 16-byte one');
  h.advance(100);
  assert.equal(perTurn(), 16);
  while (h.deferred.length) h.runTurn();
  assert.equal(p.text, 'y'.repeat(100));
});

test('after a key a flood turn waits for the echo: the echo (output finding its queue idle) ends the wait at once', () => {
  const h = harness({ pieceBytes: 4, turnMs: 10, echoWaitMs: 1 });
  const flood = h.parser('flood');
  const typed = h.parser('typed');
  const ff = h.sched.feed(flood);
  const tf = h.sched.feed(typed);
  ff.push(h.bytes('z'.repeat(40)));
  const parsedBefore = flood.text.length;
  h.sched.noteInput();
  h.runTurn();
  assert.equal(flood.text.length, parsedBefore, 'the turn right after the key is held');
  assert.equal(h.timers.length, 1, 'with a timer for echoWaitMs');
  assert.equal(h.deferred.length, 0);
  ff.push(h.bytes('more'));
  assert.equal(h.deferred.length, 0, 'more flood while held queues no second turn');
  tf.push(h.bytes('k'));
  assert.equal(typed.text, 'k', 'the echo is parsed at once');
  assert.ok(h.timers[0].cancelled, 'and ends the wait');
  assert.equal(h.deferred.length, 1, 'the held turn goes ahead');
  while (h.deferred.length) h.runTurn();
  assert.equal(flood.text, 'z'.repeat(40) + 'more', 'every byte parsed, in order');
});

test('a key without an echo holds flood turns for echoWaitMs at most', () => {
  const h = harness({ pieceBytes: 4, turnMs: 10, echoWaitMs: 1 });
  const flood = h.parser('flood');
  h.sched.feed(flood).push(h.bytes('w'.repeat(40)));
  const before = flood.text.length;
  const keyAt = h.now();
  h.sched.noteInput();
  h.runTurn();
  assert.equal(flood.text.length, before);
  const t = h.timers.shift()!;
  assert.equal(t.due - keyAt, 1, 'due echoWaitMs after the key');
  h.advance(1);
  t.fn();
  assert.ok(flood.text.length > before, 'the timer runs the turn: parsing goes on without an echo');
  while (h.deferred.length) h.runTurn();
  assert.equal(flood.text, 'w'.repeat(40));
  assert.equal(h.timers.length, 0, 'no further holds');
});

test('queue(): castellan\'s own text is never parsed at once; lazy pieces are made in their turn, in order, and output pushed later waits behind them', () => {
  const h = harness({ pieceBytes: 4, turnMs: 6 });
  const p = h.parser('r');
  const f = h.sched.feed(p);
  const made: string[] = [];
  function* pieces() {
    for (const s of ['h1..', 'h2..', 'h3..']) {
      made.push(s);
      yield s;
    }
  }
  f.queue(pieces());
  f.queue('[note]');
  f.queue('');
  assert.equal(p.text, '', 'nothing parsed by queue() itself');
  assert.equal(made.length, 0, 'no piece made before its turn');
  f.push(h.bytes('$ '));
  assert.equal(p.text, '', 'the program\'s output waits behind the queued text');
  let done = false;
  f.then(() => void (done = true));
  h.runTurn();
  assert.ok(made.length >= 1 && made.length < 3, `the first turn made only what it parsed: ${made.length}`);
  while (h.deferred.length) h.runTurn();
  assert.equal(p.text, 'h1..h2..h3..[note]$ ');
  assert.ok(done, 'then() runs after all of it');
  assert.equal(f.queued, 0);
});

test('queue(): a pane closed mid-history drops the rest without making it', () => {
  const h = harness({ pieceBytes: 4, turnMs: 4 });
  const p = h.parser('r');
  const f = h.sched.feed(p);
  let made = 0;
  f.queue((function* () { for (let i = 0; i < 100; i++) { made++; yield 'xxxx'; } })());
  h.runTurn();
  const before = made;
  f.close();
  while (h.deferred.length) h.runTurn();
  assert.equal(made, before, 'no piece made after close');
  assert.ok(before < 100);
  f.queue('late');
  assert.equal(h.deferred.length, 0, 'a closed feed takes nothing');
});
