// The bridge's raw pipe code (src/integrations/raw-pipe): the client against hostile servers, and the bridge that uses it
// (and its stdin reader) answering exactly as the node:net way does, including when the raw way is switched off.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type net from 'node:net';
import { rawPipeBinding } from '../../src/integrations/raw-pipe/binding.js';
import { RAW_MAX_REPLY_BYTES, RawPipeClient } from '../../src/integrations/raw-pipe/client.js';
import { rpcKind } from '../../src/integrations/raw-pipe/index.js';
import { RpcError } from '../../src/platform/rpc-error.js';
import { fakeDecidingServer, fakeLineServer, gateAnswer, runHook, type Feed } from './bridge-support.js';

const b = rawPipeBinding();

describe('the raw pipe client against a line server', { concurrency: true }, () => {
  let dir: string;
  const servers: Array<{ close(): Promise<void> }> = [];
  let seq = 0;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'cst-raw-'));
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.close()));
    rmSync(dir, { recursive: true, force: true });
  });
  async function serve(answer: (m: { id: string; method: string; params: unknown }, s: net.Socket) => void): Promise<string> {
    const socket = join(dir, `s${++seq}.sock`);
    servers.push(await fakeLineServer(socket, (line, s) => answer(JSON.parse(line), s)));
    return socket;
  }

  test('this Node has the binding as the bridge uses it (else the bridge would quietly take node:net)', () => {
    assert.ok(b, 'rawPipeBinding() is undefined on this Node');
    assert.equal(rpcKind({}), 'raw');
    assert.equal(rpcKind({ CASTELLAN_HOOK_SOCKET: 'net' }), 'net');
  });

  test('replies are matched by id, in any order, even split mid-character across writes', async () => {
    const socket = await serve((m, s) => {
      if (m.method === 'first') return;
      // The second request's reply first, cut inside a multibyte character, then the first's.
      const two = Buffer.from(`${JSON.stringify({ id: m.id, result: { text: 'héllo — ✓' } })}\n`);
      const cut = two.indexOf(Buffer.from('✓')) + 1;
      s.write(two.subarray(0, cut));
      setTimeout(() => {
        s.write(two.subarray(cut));
        s.write(`${JSON.stringify({ method: 'pushed', params: {} })}\n${JSON.stringify({ id: '1', result: 1 })}\n`);
      }, 20);
    });
    const c = await RawPipeClient.connect(b!, socket, 2000);
    try {
      const [one, two] = await Promise.all([c.request('first', {}, 2000), c.request('second', {}, 2000)]);
      assert.equal(one, 1);
      assert.deepEqual(two, { text: 'héllo — ✓' });
    } finally {
      c.close();
    }
  });

  test('an error reply is an RpcError with the server code; garbage and foreign ids are ignored', async () => {
    const socket = await serve((m, s) => {
      s.write('}{ garbage\nnull\n[1]\n');
      s.write(`${JSON.stringify({ id: 'other', result: 'not yours' })}\n`);
      s.write(`${JSON.stringify({ id: m.id, error: { code: 'invalid_params', message: 'no such pane' } })}\n`);
    });
    const c = await RawPipeClient.connect(b!, socket, 2000);
    try {
      await assert.rejects(c.request('pane.get', {}, 2000), (e: unknown) => e instanceof RpcError && e.code === 'invalid_params' && /no such pane/.test(e.message));
    } finally {
      c.close();
    }
  });

  test('no reply: a timeout error after the deadline, and the process is not held by it', async () => {
    const socket = await serve(() => undefined);
    const c = await RawPipeClient.connect(b!, socket, 2000);
    const t0 = performance.now();
    try {
      await assert.rejects(c.request('x', {}, 150), (e: unknown) => e instanceof RpcError && e.code === 'timeout');
      assert.ok(performance.now() - t0 >= 140);
    } finally {
      c.close();
    }
  });

  test('the server drops the connection: pending requests fail as shutting_down, later ones at once', async () => {
    const socket = await serve((_m, s) => s.destroy());
    const c = await RawPipeClient.connect(b!, socket, 2000);
    await assert.rejects(c.request('x', {}, 5000), (e: unknown) => e instanceof RpcError && e.code === 'shutting_down');
    await assert.rejects(c.request('y', {}, 5000), (e: unknown) => e instanceof RpcError && e.code === 'shutting_down');
  });

  test('a reply line longer than the cap closes the connection instead of growing without end', async () => {
    const socket = await serve((_m, s) => {
      const piece = 'x'.repeat(256 * 1024);
      for (let i = 0; i <= RAW_MAX_REPLY_BYTES / piece.length + 1; i++) s.write(piece);
    });
    const c = await RawPipeClient.connect(b!, socket, 2000);
    await assert.rejects(c.request('x', {}, 10_000), (e: unknown) => e instanceof RpcError && e.code === 'shutting_down' && /longer than/.test(e.message));
  });

  test('nothing listening: not_running, as the node:net client says it (the bridge log and tests read that code)', async () => {
    await assert.rejects(RawPipeClient.connect(b!, join(dir, 'absent.sock'), 1000), (e: unknown) => e instanceof RpcError && e.code === 'not_running');
    // A path that is not a socket at all.
    const file = join(dir, 'plain-file');
    writeFileSync(file, 'x');
    await assert.rejects(RawPipeClient.connect(b!, file, 1000), (e: unknown) => e instanceof RpcError);
  });
});

describe('the bridge on the raw way and on node:net answers alike', { concurrency: true }, () => {
  let dir: string;
  let srv: { close(): Promise<void> };
  let socket: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cst-rawb-'));
    mkdirSync(join(dir, '.castellan'), { recursive: true });
    socket = join(dir, 's.sock');
    // The server denies what mentions "forbidden" and allows the rest; it answers every report.
    srv = await fakeDecidingServer(socket);
  });
  after(async () => {
    await srv.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const payload = (command: string) => JSON.stringify({ session_id: 's', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command }, cwd: dir });
  const env = (extra: Record<string, string> = {}) => ({ PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, LANG: 'C.UTF-8', CASTELLAN_ENV: '1', CASTELLAN_SOCKET: socket, CASTELLAN_PANE_ID: 'w1:p1', ...extra });
  const FEEDS: Array<[string, (cmd: string) => Feed]> = [
    ['whole, then closed', (cmd) => ({ kind: 'whole', data: payload(cmd) })],
    // The rest comes after the synchronous drain found "would block": read through the raw stdin handle.
    ['trickled in 4 pieces', (cmd) => ({ kind: 'trickle', data: payload(cmd), chunks: 4, everyMs: 60 })],
  ];
  for (const [how, env1] of [
    ['raw', {}],
    ['node:net (CASTELLAN_HOOK_SOCKET=net)', { CASTELLAN_HOOK_SOCKET: 'net' }],
    ['--pending-deprecation (raw way skipped, no warning printed)', { NODE_OPTIONS: '--pending-deprecation' }],
  ] as const)
    for (const [feedName, feed] of FEEDS)
      test(`${how}, stdin a socketpair ${feedName}: allowed silently, denied with the server's reason`, async () => {
        const ok = await runHook({ agent: 'claude', event: 'PreToolUse', feed: feed('ls'), env: env(env1), cwd: dir });
        assert.equal(ok.code, 0, ok.stderr);
        assert.equal(ok.stdout, '');
        assert.equal(ok.stderr, '');
        const no = await runHook({ agent: 'claude', event: 'PreToolUse', feed: feed('echo forbidden'), env: env(env1), cwd: dir });
        assert.equal(no.code, 0, no.stderr);
        const a = gateAnswer('claude', no.stdout);
        assert.equal(a?.decision, 'deny', no.stdout);
        assert.match(a!.reason, /the fake says no/);
        assert.equal(no.stderr, '');
      });

  test('stdin never closed on a socketpair: the read deadline still holds on the raw handle, and the call is denied', async () => {
    const r = await runHook({ agent: 'claude', event: 'PreToolUse', feed: { kind: 'open', data: payload('ls') }, env: env({ CASTELLAN_HOOK_READ_MS: '300' }), cwd: dir });
    assert.equal(r.hung, false);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(gateAnswer('claude', r.stdout)?.decision, 'deny');
  });
});
