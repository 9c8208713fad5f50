// Hostile socket input: byte-counted line limit, nesting bombs, value floods, and readers that never read.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type net from 'node:net';
import { MAX_LINE_BYTES } from '../../src/api/protocol.js';
import { METHODS } from '../../src/api/methods/index.js';
import { DEFAULT_OUTPUT_LIMITS, onLines } from '../../src/server/socket-server.js';
import { type LimitedServer, RawConn, startLimited } from './socket-support.js';

const deepArray = (n: number) => '['.repeat(n) + ']'.repeat(n);
const deepObject = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);

describe('line reader', () => {
  /** Feeds chunks to onLines through a stand-in socket; returns what it saw. */
  function feed(chunks: Buffer[]): { lines: string[]; tooLong: number } {
    const sock = new EventEmitter() as unknown as net.Socket;
    const seen = { lines: [] as string[], tooLong: 0 };
    onLines(sock, (l) => seen.lines.push(l.toString('utf8')), () => seen.tooLong++, Infinity);
    for (const c of chunks) sock.emit('data', c);
    return seen;
  }

  test('the limit counts bytes: a 12.6 MB line of 3-byte characters (4.2 M UTF-16 units) is refused', () => {
    const text = '€'.repeat(MAX_LINE_BYTES - 1000);
    assert.ok(text.length < MAX_LINE_BYTES && Buffer.byteLength(text) > 3 * MAX_LINE_BYTES - 4000);
    const big = Buffer.from(`{"id":1,"method":"ping","params":{"x":"${text}"}}\n{"id":2,"method":"ping"}\n`);
    // Whole in one chunk, and streamed in 64 KiB pieces as a socket delivers it.
    const pieces: Buffer[] = [];
    for (let i = 0; i < big.length; i += 65536) pieces.push(big.subarray(i, i + 65536));
    for (const chunks of [[big], pieces]) {
      const seen = feed(chunks);
      assert.equal(seen.tooLong, 1);
      assert.deepEqual(seen.lines, ['{"id":2,"method":"ping"}']);
    }
  });

  test('a line just under the limit in bytes is kept whole, multi-byte characters split across chunks included', () => {
    const text = 'é€😀'.repeat(Math.floor((MAX_LINE_BYTES - 100) / 9));
    const line = Buffer.from(`{"x":"${text}"}`);
    assert.ok(line.length <= MAX_LINE_BYTES);
    // Cut every chunk at an odd offset so characters straddle chunk boundaries.
    const all = Buffer.concat([line, Buffer.from('\n')]);
    const chunks: Buffer[] = [];
    for (let i = 0; i < all.length; i += 4099) chunks.push(all.subarray(i, i + 4099));
    const seen = feed(chunks);
    assert.equal(seen.tooLong, 0);
    assert.equal(seen.lines.length, 1);
    assert.equal((JSON.parse(seen.lines[0]) as { x: string }).x, text);
  });
});

describe('socket limits', () => {
  let srv: LimitedServer;
  let c: RawConn;
  before(async () => {
    srv = await startLimited();
    c = await RawConn.connect(srv.paths.socket);
  });
  after(async () => {
    c.close();
    await srv.stop();
  });

  test('a multi-byte line over the byte limit gets line_too_long over the socket; the next request works', async () => {
    c.write(`{"id":"big","method":"ping","params":{"x":"${'€'.repeat(MAX_LINE_BYTES / 2)}"}}\n`);
    const r = await c.next((m) => m.error?.code === 'line_too_long', 15_000);
    assert.equal(r.id, 'big', 'the refusal names the request, so its caller fails at once instead of waiting for a timeout');
    assert.equal((await c.request('after', 'ping')).id, 'after');
  });

  test('events.emit nested 10 000 deep is invalid_params, answered fast, with its id', async () => {
    for (const nest of [deepArray(10_000), deepObject(10_000), deepArray(2_000_000)]) {
      const t0 = performance.now();
      c.write(`{"id":"deep","method":"events.emit","params":{"type":"hook_x","data":${nest}}}\n`);
      const r = await c.next((m) => m.id === 'deep', 15_000);
      assert.equal(r.error?.code, 'invalid_params', JSON.stringify(r).slice(0, 300));
      assert.match(r.error!.message, /nested deeper than 64 levels/);
      // Bounded by reading the line off the socket, not by parsing it (a 4 MB `[[[[` took V8 about a second).
      assert.ok(performance.now() - t0 < 2000, `took ${performance.now() - t0} ms`);
    }
    assert.equal((await c.request('after', 'ping')).id, 'after');
  });

  test('every method refuses params nested deeper than 64 levels (but takes 64)', async () => {
    for (const m of METHODS) {
      if (m.name === 'server.stop') continue;
      const r = await c.request(`d-${m.name}`, m.name, JSON.parse(deepObject(70)));
      assert.equal(r.error?.code, 'invalid_params', `${m.name}: ${JSON.stringify(r).slice(0, 200)}`);
    }
    // The limit is on depth, not on what a method accepts: 64 levels of events.emit payload still go through.
    const ok = await c.request('d64', 'events.emit', { type: 'hook_deep', data: JSON.parse(deepObject(63)) });
    assert.deepEqual(ok.result, { emitted: true });
  });

  test('a flood of values (a million `{}` in one line) is refused before parsing', async () => {
    const t0 = performance.now();
    c.write(`{"id":"wide","method":"events.emit","params":{"type":"hook_x","data":[${'{},'.repeat(1_000_000)}{}]}}\n`);
    const r = await c.next((m) => m.id === 'wide', 15_000);
    assert.equal(r.error?.code, 'invalid_params');
    assert.match(r.error!.message, /more than 200000 values/);
    assert.ok(performance.now() - t0 < 2000, `took ${performance.now() - t0} ms`);
  });

  test('a huge id is not echoed back', async () => {
    c.write(JSON.stringify({ id: 'x'.repeat(100_000), method: 'ping' }) + '\n');
    const r = await c.next((m) => m.error?.code === 'invalid_request');
    assert.equal(r.id, null);
  });
});

describe('output queue caps', () => {
  test('the defaults: 64 MiB per connection, 256 MiB for all connections together', () => {
    assert.deepEqual(DEFAULT_OUTPUT_LIMITS, { perConnection: 64 * 1024 * 1024, total: 256 * 1024 * 1024 });
  });

  test('subscribers that never read are cut off once all of them together hold more than the total cap', async (t) => {
    const limits = { perConnection: 4 * 1024 * 1024, total: 6 * 1024 * 1024 };
    const srv = await startLimited(limits);
    const conns: RawConn[] = [];
    try {
      const slow: RawConn[] = [];
      for (let i = 0; i < 6; i++) {
        const s = await RawConn.connect(srv.paths.socket);
        conns.push(s);
        await s.request(`s${i}`, 'events.subscribe', { types: ['hook_flood'] });
        s.sock.pause(); // from here on it reads nothing
        slow.push(s);
      }
      const reader = await RawConn.connect(srv.paths.socket);
      conns.push(reader);
      await reader.request('r', 'events.subscribe', { types: ['hook_flood'] });
      const flooder = await RawConn.connect(srv.paths.socket);
      conns.push(flooder);
      // events.emit keeps strings to 8000 characters: seven of them make a ~55 KB event.
      const fields = Object.fromEntries([0, 1, 2, 3, 4, 5, 6].map((k) => [`f${k}`, 'x'.repeat(7900)]));
      const slowLeft = () => srv.session.stats().subscribers - 1;
      let maxQueued = 0;
      for (let i = 0; i < 600 && slowLeft() > 0; i++) {
        const r = await flooder.request(`e${i}`, 'events.emit', { type: 'hook_flood', n: i, ...fields });
        assert.deepEqual(r.result, { emitted: true });
        maxQueued = Math.max(maxQueued, srv.handle.queuedBytes());
        reader.msgs.splice(0); // it reads; the test does not need to keep what it read
      }
      // A paused client never sees its socket close, so count on the server: only the reader's subscription is left.
      assert.equal(slowLeft(), 0, srv.logs.slice(-8).join('\n'));
      assert.ok(maxQueued <= limits.total + 128 * 1024, `queued ${maxQueued} bytes at most; cap ${limits.total}`);
      const drops = srv.logs.filter((l) => l.startsWith('dropping connection'));
      assert.equal(drops.length, 6, drops.join('\n'));
      assert.ok(drops.some((l) => /the most of any connection, while all of them hold over the 6\.0 MiB total/.test(l)), drops.join('\n'));
      assert.ok(drops.every((l) => /MiB of output queued/.test(l)));
      const byTotal = drops.filter((l) => /total/.test(l)).length;
      t.diagnostic(`output caps: 6 readers that never read; ${byTotal} cut by the total cap, ${6 - byTotal} by the per-connection cap; at most ${(maxQueued / 2 ** 20).toFixed(2)} MiB queued (total cap ${limits.total / 2 ** 20} MiB)`);
      // The connections that keep reading are untouched.
      assert.equal(reader.closed, false);
      assert.equal(flooder.closed, false);
      assert.equal((await flooder.request('p', 'ping')).id, 'p');
    } finally {
      for (const s of conns) s.close();
      await srv.stop();
    }
  });
});
