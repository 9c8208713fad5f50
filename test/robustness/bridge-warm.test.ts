// A tool call's bridge connects before it reads its payload (hook-command.ts, BridgeLink.warm): a payload slower than the
// connect deadline, no server, a server that drops the early connection, or a payload that cannot be read never waves
// a call through, never hangs the bridge, and never leaves the early connection open.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONNECT_TIMEOUT_MS } from '../../src/integrations/bridge.js';
import { BridgeLink } from '../../src/integrations/bridge-link.js';
import { waitFor } from '../support/wait-for.js';
import { gateAnswer, runHook, type Feed } from './bridge-support.js';

/** A fake server that counts connections (accepted and closed) and the methods asked on each. */
async function countingServer(path: string, onConnect: (s: net.Socket) => 'keep' | 'drop' = () => 'keep') {
  const conns: Array<{ methods: string[]; closed: boolean }> = [];
  const socks = new Set<net.Socket>();
  const srv = net.createServer((s) => {
    const c = { methods: [] as string[], closed: false };
    conns.push(c);
    socks.add(s);
    s.on('error', () => undefined);
    s.on('close', () => (c.closed = true));
    if (onConnect(s) === 'drop') return void s.destroy();
    let buf = '';
    s.setEncoding('utf8').on('data', (d: string) => {
      buf += d;
      for (let i = buf.indexOf('\n'); i !== -1; i = buf.indexOf('\n')) {
        const m = JSON.parse(buf.slice(0, i)) as { id: string; method: string };
        buf = buf.slice(i + 1);
        c.methods.push(m.method);
        const result = m.method === 'hook.decide' ? { decided: true, decision: 'allow', source: 'policy' } : { pane_id: 'w1:p1', state: 'working' };
        s.write(`${JSON.stringify({ id: m.id, result })}\n`);
      }
    });
  });
  await new Promise<void>((r) => srv.listen(path, r));
  return {
    conns,
    close: () =>
      new Promise<void>((r) => {
        for (const s of socks) s.destroy();
        srv.close(() => r());
      }),
  };
}

describe('the early connection of a tool call', { concurrency: true }, () => {
  let dir: string;
  const servers: Array<{ close(): Promise<void> }> = [];
  let seq = 0;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'cst-warm-'));
    // The bridge's own config denies shell: an allow can only come from the server, and a call it fails to decide is denied.
    mkdirSync(join(dir, '.castellan'), { recursive: true });
    writeFileSync(join(dir, '.castellan', 'config.toml'), '[governance.permissions]\nshell = "deny"\n');
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  const sockPath = () => join(dir, `s${++seq}.sock`);
  const serve = async (onConnect?: (s: net.Socket) => 'keep' | 'drop') => {
    const path = sockPath();
    const srv = await countingServer(path, onConnect);
    servers.push(srv);
    return { path, ...srv };
  };
  const PRE = (cmd = 'ls') => JSON.stringify({ session_id: 's', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: cmd }, cwd: dir });
  const call = (socket: string, feed: Feed) =>
    runHook({
      agent: 'claude',
      event: 'PreToolUse',
      feed,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, LANG: 'C.UTF-8', CASTELLAN_ENV: '1', CASTELLAN_SOCKET: socket, CASTELLAN_PANE_ID: 'w1:p1' },
      cwd: dir,
    });

  test('a payload slower than the connect deadline: the early connection still carries the report and the decision', async () => {
    const srv = await serve();
    // 4 pieces 200 ms apart: the last one comes ~600 ms after the bridge connected, twice the connect deadline.
    const r = await call(srv.path, { kind: 'trickle', data: PRE(), chunks: 4, everyMs: 200 });
    assert.ok(3 * 200 > CONNECT_TIMEOUT_MS);
    assert.equal(r.hung, false);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '', `the server allowed it (the bridge alone would deny): ${r.stdout}`);
    assert.deepEqual(
      srv.conns.map((c) => c.methods),
      [['pane.report_agent', 'hook.decide']],
    );
  });

  test('nothing listens at the socket: denied by the bridge itself, no unhandled rejection, no hang', async () => {
    const r = await call(join(dir, 'nobody.sock'), { kind: 'trickle', data: PRE(), chunks: 3, everyMs: 100 });
    assert.equal(r.hung, false);
    assert.equal(gateAnswer('claude', r.stdout)?.decision, 'deny', r.stderr);
    assert.doesNotMatch(r.stderr, /unhandled|ERR_UNHANDLED_REJECTION|NotRunningError/i);
  });

  test('a server that drops the early connection before the payload comes: denied by the bridge itself', async () => {
    const srv = await serve(() => 'drop');
    const r = await call(srv.path, { kind: 'trickle', data: PRE(), chunks: 3, everyMs: 100 });
    assert.equal(r.hung, false);
    assert.equal(gateAnswer('claude', r.stdout)?.decision, 'deny', r.stderr);
    assert.doesNotMatch(r.stderr, /unhandled|ERR_UNHANDLED_REJECTION/i);
  });

  test('a payload that cannot be read: denied, and the early connection is closed without a request', async () => {
    const srv = await serve();
    const r = await call(srv.path, { kind: 'whole', data: 'this is not JSON {' });
    assert.equal(r.hung, false);
    assert.equal(gateAnswer('claude', r.stdout)?.decision, 'deny', r.stderr);
    // The bridge connected before it read the payload; that connection asked nothing and is gone.
    await waitFor(() => srv.conns.length > 0 && srv.conns.every((c) => c.closed), { timeoutMs: 10_000, message: 'every connection closed', observe: () => srv.conns });
    assert.deepEqual(srv.conns[0]!.methods, []);
  });

  test('a state-only event does not connect early: one connection, the report only', async () => {
    const srv = await serve();
    const r = await runHook({
      agent: 'claude',
      event: 'UserPromptSubmit',
      feed: { kind: 'whole', data: JSON.stringify({ session_id: 's', hook_event_name: 'UserPromptSubmit', prompt: 'hi', cwd: dir }) },
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, LANG: 'C.UTF-8', CASTELLAN_ENV: '1', CASTELLAN_SOCKET: srv.path, CASTELLAN_PANE_ID: 'w1:p1' },
      cwd: dir,
    });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(
      srv.conns.map((c) => c.methods),
      [['pane.report_agent']],
    );
  });

  test('in process: a warmed connection to nothing fails its first user as a connect would, and release after it is a no-op', async () => {
    const link = new BridgeLink(join(dir, 'nobody-here.sock'));
    link.warm(CONNECT_TIMEOUT_MS);
    // A rejection nobody awaited yet must not surface as an unhandled rejection (the test process would die of it).
    await new Promise((r) => setImmediate(r));
    await assert.rejects(link.use(CONNECT_TIMEOUT_MS, async () => 'never'), (e: Error & { code?: string }) => e.code === 'not_running');
    link.release();
  });

  test('in process: warm then release with no user closes the connection; warm then use reuses it (one accept)', async () => {
    const srv = await serve();
    const unused = new BridgeLink(srv.path);
    unused.warm(CONNECT_TIMEOUT_MS);
    await waitFor(() => srv.conns.length === 1, { timeoutMs: 5000, message: 'the warm connection accepted' });
    unused.release();
    await waitFor(() => srv.conns[0]!.closed, { timeoutMs: 5000, message: 'the unused warm connection closed' });
    const used = new BridgeLink(srv.path);
    used.warm(CONNECT_TIMEOUT_MS);
    const reply = await used.use(CONNECT_TIMEOUT_MS, (api) => api.request<{ state: string }>('pane.report_agent', {}, 2000));
    assert.equal(reply.state, 'working');
    used.release();
    await waitFor(() => srv.conns.length === 2 && srv.conns[1]!.closed, { timeoutMs: 5000, message: 'the used connection closed after its user' });
    assert.deepEqual(srv.conns[1]!.methods, ['pane.report_agent']);
  });
});
