// The socket API over a real Unix socket: every method, bad input, permissions, concurrency.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import net from 'node:net';
import { dirname } from 'node:path';
import { ApiClient } from '../../src/api/client.js';
import { RpcError } from '../../src/api/client.js';
import { listen } from '../../src/server/socket-server.js';
import { startInProcess, waitFor, type InProcessServer } from './in-process.js';

/** Sends raw lines on a fresh socket and collects reply lines. */
async function raw(path: string, data: string, expect: number): Promise<Array<Record<string, unknown>>> {
  const sock = net.connect(path);
  const out: Array<Record<string, unknown>> = [];
  let buf = '';
  await new Promise<void>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`only ${out.length} replies: ${JSON.stringify(out)}`)), 5000);
    sock.on('data', (d) => {
      buf += d.toString();
      let i;
      while ((i = buf.indexOf('\n')) !== -1) {
        out.push(JSON.parse(buf.slice(0, i)));
        buf = buf.slice(i + 1);
      }
      if (out.length >= expect) {
        clearTimeout(t);
        resolve();
      }
    });
    sock.on('error', reject);
    sock.write(data);
  });
  sock.destroy();
  return out;
}

async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (e) {
    return e instanceof RpcError ? e.code : String(e);
  }
}

describe('socket API', () => {
  let srv: InProcessServer;
  let api: ApiClient;
  before(async () => {
    srv = await startInProcess();
    api = await srv.connect();
  });
  after(() => srv.stop());

  test('socket is private: file 0600 in a 0700 directory', () => {
    assert.equal(statSync(srv.paths.socket).mode & 0o777, 0o600);
    assert.equal(statSync(dirname(srv.paths.socket)).mode & 0o777, 0o700);
  });

  test('a live socket is never stolen', async () => {
    await assert.rejects(listen(srv.paths.socket, srv.session, () => {}), /already running/);
    assert.equal((await api.request<{ pong: boolean }>('ping')).pong, true);
  });

  test('ping returns version and protocol', async () => {
    const r = await api.request<Record<string, unknown>>('ping');
    assert.equal(r.protocol, 1);
    assert.equal(r.version, 'test');
    assert.equal(r.session, 'default');
  });

  test('bad input gets the right error code and the connection keeps serving', async () => {
    const replies = await raw(
      srv.paths.socket,
      [
        'this is not json',
        JSON.stringify({ id: 'a', method: 'no.such.method' }),
        JSON.stringify({ id: 'b', method: 'pane.get', params: { pane_id: 42 } }),
        JSON.stringify({ id: 'c', method: 'pane.get', params: { pane_id: 'w9:p9' } }),
        JSON.stringify({ id: 'd', params: {} }),
        JSON.stringify({ id: 'e', method: 'pane.split', params: { direction: 'sideways' } }),
        JSON.stringify({ id: 'f', method: 'ping' }),
      ].join('\n') + '\n',
      7,
    );
    const byId = new Map(replies.map((r) => [r.id, r]));
    assert.equal((byId.get(null) as { error: { code: string } }).error.code, 'parse_error');
    assert.equal((byId.get('a') as { error: { code: string } }).error.code, 'unknown_method');
    assert.equal((byId.get('b') as { error: { code: string } }).error.code, 'invalid_params');
    assert.equal((byId.get('c') as { error: { code: string } }).error.code, 'pane_not_found');
    assert.equal((byId.get('d') as { error: { code: string } }).error.code, 'invalid_request');
    assert.equal((byId.get('e') as { error: { code: string } }).error.code, 'invalid_params');
    assert.ok((byId.get('f') as { result: { pong: boolean } }).result.pong);
  });

  test('a huge line is refused with line_too_long, then the next request works', async () => {
    const huge = JSON.stringify({ id: 'h', method: 'ping', params: { x: 'y'.repeat(5 * 1024 * 1024) } });
    const replies = await raw(srv.paths.socket, huge + '\n' + JSON.stringify({ id: 'after', method: 'ping' }) + '\n', 2);
    assert.equal((replies[0] as { error: { code: string } }).error.code, 'line_too_long');
    assert.equal(replies[1].id, 'after');
  });

  test('a client that disconnects mid-request does not disturb others', async () => {
    const s = net.connect(srv.paths.socket);
    await new Promise((r) => s.once('connect', r));
    s.write(JSON.stringify({ id: 1, method: 'events.wait', params: { types: ['never_happens'], timeout_ms: 60000 } }) + '\n{"id":2,"method":"pi');
    s.destroy();
    assert.equal((await api.request<{ pong: boolean }>('ping')).pong, true);
  });

  test('several requests in flight on one connection; replies matched by id', async () => {
    const wait = api.request('events.wait', { types: ['window_renamed'], timeout_ms: 5000 });
    const ping = await api.request<{ pong: boolean }>('ping');
    assert.ok(ping.pong, 'ping answered while a wait is pending');
    await api.request('window.rename', { window_id: 'w1', name: 'main' });
    const r = await wait as { event: { type: string; name: string } };
    assert.equal(r.event.type, 'window_renamed');
    assert.equal(r.event.name, 'main');
  });

  test('pane lifecycle: split, list, get, rename, focus, send, read, close', async () => {
    const split = await api.request<{ pane_id: string; window_id: string }>('pane.split', { pane_id: 'w1:p1', direction: 'down', command: ['/bin/sh'] });
    assert.match(split.pane_id, /^w1:p\d+$/);
    const list = await api.request<{ panes: Array<{ pane_id: string; cols: number; rows: number }> }>('pane.list');
    assert.deepEqual(list.panes.map((p) => p.pane_id), ['w1:p1', split.pane_id]);
    const got = await api.request<{ pane_id: string; active: boolean; command: string[] }>('pane.get', { pane_id: split.pane_id });
    assert.equal(got.active, true);
    assert.deepEqual(got.command, ['/bin/sh']);
    await api.request('pane.rename', { pane_id: split.pane_id, name: 'worker\u0007' });
    assert.equal((await api.request<{ title: string }>('pane.get', { pane_id: split.pane_id })).title, 'worker');
    await api.request('pane.focus', { pane_id: 'w1:p1' });
    assert.equal((await api.request<{ active: boolean }>('pane.get', { pane_id: 'w1:p1' })).active, true);
    await api.request('pane.send_text', { pane_id: split.pane_id, text: 'echo sum=$((40+2))', enter: true });
    await waitFor(async () => (await api.request<{ text: string }>('pane.read', { pane_id: split.pane_id })).text.includes('sum=42'), { message: 'echo output' });
    await api.request('pane.send_keys', { pane_id: split.pane_id, keys: ['e', 'c', 'h', 'o', 'Space', 'k', 'e', 'y', 's', 'Enter'] });
    await waitFor(async () => (await api.request<{ lines: string[] }>('pane.read', { pane_id: split.pane_id })).lines.includes('keys'), { message: 'send_keys output' });
    assert.equal(await code(api.request('pane.send_keys', { pane_id: split.pane_id, keys: ['NoSuchKey'] })), 'invalid_params');
    await api.request('pane.close', { pane_id: split.pane_id });
    assert.equal(await code(api.request('pane.get', { pane_id: split.pane_id })), 'pane_not_found');
  });

  test('pane.read: scrollback with last N lines, plain and with colours', async () => {
    await api.request('pane.send_text', { pane_id: 'w1:p1', text: "printf '\\033[31mred\\033[0m\\n'; seq 1 300", enter: true });
    await waitFor(async () => (await api.request<{ lines: string[] }>('pane.read', { pane_id: 'w1:p1' })).lines.includes('300'), { message: 'seq done' });
    const all = await api.request<{ lines: string[] }>('pane.read', { pane_id: 'w1:p1', source: 'scrollback', lines: 400 });
    assert.ok(all.lines.includes('1') && all.lines.includes('300'), 'history and screen');
    const last = await api.request<{ lines: string[] }>('pane.read', { pane_id: 'w1:p1', source: 'scrollback', lines: 5 });
    assert.equal(last.lines.length, 5);
    const ansi = await api.request<{ text: string }>('pane.read', { pane_id: 'w1:p1', source: 'scrollback', lines: 400, ansi: true });
    assert.match(ansi.text, /\x1b\[31mred/);
  });

  test('windows: new, list, select, rename, close', async () => {
    const w = await api.request<{ window_id: string; pane_id: string }>('window.new', { name: 'build', command: ['/bin/sh'] });
    assert.equal(w.pane_id, `${w.window_id}:p1`);
    const list = await api.request<{ windows: Array<{ window_id: string; name: string; index: number }> }>('window.list');
    assert.deepEqual(list.windows.map((x) => x.name).slice(-1), ['build']);
    await api.request('window.select', { index: 1 });
    await api.request('window.rename', { window_id: w.window_id, name: 'tests' });
    await api.request('window.close', { window_id: w.window_id });
    assert.equal((await api.request<{ windows: unknown[] }>('window.list')).windows.length, 1);
    assert.equal(await code(api.request('window.select', { window_id: 'w99' })), 'window_not_found');
  });

  test('events.subscribe streams events tagged with the request id; unsubscribe stops them', async () => {
    const sub = await ApiClient.connect(srv.paths.socket);
    const seen: Array<Record<string, unknown>> = [];
    sub.onMessage((m) => seen.push(m));
    await sub.request('events.subscribe', { types: ['pane_renamed'] }, { id: 'S1' });
    await api.request('pane.rename', { pane_id: 'w1:p1', name: 'one' });
    await waitFor(() => seen.length >= 1, { message: 'event' });
    assert.equal(seen[0].id, 'S1');
    const ev = seen[0].event as { type: string; seq: number; ts: number; name: string };
    assert.equal(ev.type, 'pane_renamed');
    assert.ok(ev.seq > 0 && ev.ts > 0);
    assert.deepEqual(await sub.request('events.unsubscribe', { subscription: 'S1' }), { unsubscribed: true });
    await api.request('pane.rename', { pane_id: 'w1:p1', name: 'two' });
    await api.request('ping');
    assert.equal(seen.length, 1);
    sub.close();
  });

  test('api schema lists every public method with JSON Schemas', async () => {
    const { apiSchema } = await import('../../src/cli/commands/api-schema.js');
    const s = apiSchema(false) as { methods: Record<string, { params: unknown; result: unknown }> };
    for (const m of ['ping', 'pane.list', 'pane.get', 'pane.split', 'pane.close', 'pane.focus', 'pane.rename', 'pane.send_text', 'pane.send_keys', 'pane.read', 'pane.report_agent', 'pane.reset_agent', 'window.list', 'window.new', 'events.subscribe', 'events.wait']) {
      assert.ok(s.methods[m], `schema has ${m}`);
      assert.equal(typeof s.methods[m].params, 'object');
    }
    assert.ok(!s.methods['client.input'], 'internal methods are hidden');
  });
});

describe('socket file', () => {
  test('a stale socket file from a server killed with -9 is replaced', async () => {
    const srv = await startInProcess();
    const path = srv.paths.socket;
    await new Promise<void>((r) => srv.server.close(() => r()));
    const { spawn } = await import('node:child_process');
    const { existsSync } = await import('node:fs');
    const child = spawn(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(path)}, () => console.log('up')); setInterval(() => {}, 1000)`], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise((r) => child.stdout!.once('data', r));
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    assert.ok(existsSync(path), 'the dead server left its socket file behind');
    const server2 = await listen(path, srv.session, () => {});
    const c = await ApiClient.connect(path);
    assert.equal((await c.request<{ pong: boolean }>('ping')).pong, true);
    c.close();
    await new Promise<void>((r) => server2.close(() => r()));
    srv.session.shutdown('done');
  });
});
