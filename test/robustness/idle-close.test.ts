// The server closes an answered, idle connection (so `printf … | nc -U` returns) and never one that waits for something: a request in flight, a half-sent line, a subscription, an attached client, a client that asked to stay.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { ApiClient } from '../../src/api/client.js';
import { IDLE_CLOSE_MS } from '../../src/server/idle-close.js';
import { RawConn, startLimited } from './socket-support.js';
import { tempEnvFor } from '../support/temp-env.js';
import { waitFor } from '../support/wait-for.js';

/** Long enough past the quiet time that a connection the server meant to close is closed (on a loaded machine too). */
const PAST_QUIET = IDLE_CLOSE_MS * 4;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An in-process server whose connections the test closes before the server (server.close waits for them). */
async function server(t: { after(fn: () => unknown): void }) {
  const s = await startLimited();
  const open: Array<{ close(): void }> = [];
  t.after(async () => {
    for (const c of open) c.close();
    await s.stop();
  });
  return { s, conn: async () => { const c = await RawConn.connect(s.paths.socket); open.push(c); return c; }, api: async () => { const a = await ApiClient.connect(s.paths.socket); open.push(a); return a; } };
}

test('an answered connection with nothing pending is closed after the quiet time; one that keeps talking is not', async (t) => {
  const { s, conn, api: apiConn } = await server(t);
  const c = await conn();
  // Requests closer together than the quiet time share the connection.
  for (let i = 1; i <= 5; i++) {
    await sleep(IDLE_CLOSE_MS / 4);
    assert.ok('result' in (await c.request(i, 'ping')), `request ${i} answered`);
  }
  const t0 = Date.now();
  await waitFor(() => c.closed, { timeoutMs: 5000, message: 'the server closes the idle, answered connection' });
  assert.ok(Date.now() - t0 >= IDLE_CLOSE_MS * 0.8, 'not before the quiet time');
});

test('connection.keep (what castellan\'s own clients send) keeps an idle connection open', async (t) => {
  const { s, conn, api: apiConn } = await server(t);
  const raw = await conn();
  raw.write('{"method":"connection.keep","params":{}}\n');
  assert.ok('result' in (await raw.request(1, 'ping')));
  await sleep(PAST_QUIET);
  assert.equal(raw.closed, false);
  assert.ok('result' in (await raw.request(2, 'ping')), 'a later request on the same connection is answered');
  // The CLI's client: idle between two requests, the second still goes through.
  const api = await apiConn();
  await api.request('ping', {});
  await sleep(PAST_QUIET);
  assert.equal(api.closed, false);
  await api.request('ping', {});
  // Hostile params are refused, and the connection is then closed as any answered one.
  const bad = await conn();
  const r = await bad.request(1, 'connection.keep', { forever: 'yes' });
  assert.equal(r.error?.code, 'invalid_params');
  await waitFor(() => bad.closed, { timeoutMs: 5000, message: 'a refused keep keeps nothing' });
});

test('never closed while waiting: a request in flight (events.wait), a half-sent line, a subscription, an attached client', async (t) => {
  const { s, conn, api: apiConn } = await server(t);
  // events.wait: nothing answers it until its timeout, well past the quiet time.
  const waiter = await conn();
  assert.ok('result' in (await waiter.request(1, 'ping')));
  const waited = waiter.request(2, 'events.wait', { types: ['pane_exited'], timeout_ms: PAST_QUIET * 2 }, 10_000);
  // A half line after an answer, then nothing: the peer is in the middle of a request.
  const half = await conn();
  assert.ok('result' in (await half.request(1, 'ping')));
  half.write('{"id":2,"method":"pi');
  // A subscriber: its events come later.
  const sub = await conn();
  assert.ok('result' in (await sub.request(1, 'events.subscribe', { types: ['window_created'] })));
  // An attached client (the UI), without connection.keep.
  const ui = await conn();
  assert.ok('result' in (await ui.request(1, 'client.attach', { cols: 80, rows: 24 })), 'attached');
  await sleep(PAST_QUIET);
  assert.deepEqual([waiter.closed, half.closed, sub.closed, ui.closed], [false, false, false, false], 'none of them was closed');
  const w = await waited;
  assert.ok('result' in w || w.error?.code === 'timeout', `events.wait ends on its own terms: ${JSON.stringify(w)}`);
  half.write('ng"}\n');
  assert.ok('result' in (await half.next((m) => m.id === 2)), 'the finished line is answered');
  const api = await apiConn();
  await api.request('window.new', {});
  assert.ok((await sub.next((m) => !!m.event)).event, 'the subscriber gets its event');
  assert.equal(ui.closed, false);
});

test('hostile peers: binary garbage is answered and then closed; a flood of connections each gets its answer before its close', async (t) => {
  const { s, conn, api: apiConn } = await server(t);
  const g = await conn();
  g.write(Buffer.from([0xff, 0x00, 0xfe, 0x1b, 0x5b, 0x0a]));
  const e = await g.next((m) => 'error' in m);
  assert.equal(e.error?.code, 'parse_error');
  await waitFor(() => g.closed, { timeoutMs: 5000, message: 'the garbage connection is closed once answered' });
  // A slow request (events.wait for a short while) on many connections at once: each is answered, none cut first.
  const conns = await Promise.all(Array.from({ length: 40 }, () => conn()));
  const replies = await Promise.all(conns.map((c, i) => c.request(i, i % 2 ? 'ping' : 'events.wait', i % 2 ? undefined : { types: ['pane_exited'], timeout_ms: IDLE_CLOSE_MS * 2 }, 10_000)));
  assert.equal(replies.length, 40);
  for (const r of replies) assert.ok('result' in r || r.error?.code === 'timeout', JSON.stringify(r));
  await waitFor(() => conns.every((c) => c.closed), { timeoutMs: 10_000, message: 'all of them are closed once answered' });
});

/** Debian's netcat (netcat-openbsd), the one whose `nc -U` waits for the server to close. */
function ncOpenbsd(): string | undefined {
  for (const nc of ['nc.openbsd', 'nc']) {
    const r = spawnSync(nc, ['-h'], { encoding: 'utf8' });
    if (!r.error && /-U\b/.test(`${r.stdout}${r.stderr}`) && /OpenBSD/i.test(`${r.stdout}${r.stderr}`)) return nc;
  }
  return undefined;
}
const NC = ncOpenbsd();

test("the contract's shell example, verbatim with Debian's netcat, returns at once with the reply", { skip: !NC && 'nc.openbsd not installed (apt package netcat-openbsd; .ci/run installs it)' }, async (t) => {
  const env = tempEnvFor(t);
  const start = await env.cli(['server', 'start', '--', 'sh']);
  assert.equal(start.code, 0, start.stderr + env.logTail());
  // As an agent wrapper runs it (docs/detection.md, "printf … | nc -U"): a hook report for this pane.
  const script = `printf '{"id":1,"method":"pane.report_agent","params":{"pane_id":"%s","agent":"myagent","state":"working","source":"hook"}}\\n' "$CASTELLAN_PANE_ID" | ${NC} -U "$SOCKET"`;
  const t0 = Date.now();
  const child = spawn('sh', ['-c', script], { env: { ...env.env, SOCKET: env.socket, CASTELLAN_PANE_ID: 'w1:p1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  const code = await Promise.race([new Promise<number | null>((r) => child.on('exit', (c) => r(c))), sleep(10_000).then(() => 'hung' as const)]);
  if (code === 'hung') child.kill('SIGKILL');
  const ms = Date.now() - t0;
  assert.notEqual(code, 'hung', 'nc -U returned');
  assert.equal(code, 0);
  assert.match(out, /^\{"id":1,"result":/, out);
  // The quiet time plus a Node-free nc start: well under a second even on a loaded machine.
  assert.ok(ms < 3000, `nc took ${ms} ms`);
  const herd = await env.call<{ panes: Array<{ pane_id: string; agent: { name?: string; state: string } }> }>('pane.list');
  assert.equal(herd.panes.find((p) => p.pane_id === 'w1:p1')?.agent.state, 'working');
});
