// The web view's guards with a fake session: every hostile request refused and nothing typed; pairing, cookies, actions audited.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { connect } from 'node:net';
import { qrText } from '../../src/web/index.js';
import WebSocket from 'ws';
import { checkSettings, WebServer } from '../../src/web/server.js';
import { hostAllowed, originAllowed } from '../../src/web/guard.js';
import { MAX_FAILURES, Pairing } from '../../src/web/pairing.js';
import { scrolledBy } from '../../src/web/live.js';
import type { WebHost, WebSettings } from '../../src/web/types.js';
import { waitFor } from '../support/wait-for.js';

function fakeHost() {
  const writes: Array<[string, string]> = [];
  const audits: Array<Record<string, unknown>> = [];
  const answers: Array<[string, string]> = [];
  const listeners = new Set<(e: { type: string }) => void>();
  const changes = new Set<() => void>();
  let rows = ['hello', '', ''];
  const agent = (state: string) => ({ agent: 'claude', state, since: Date.now() - 5000, message: `${state} message` });
  const state = {
    panes: {
      'w1:p1': { id: 'w1:p1', window: 'w1', command: ['bash'], agent: agent('working') },
      'w1:p2': { id: 'w1:p2', window: 'w1', command: ['claude'], agent: agent('blocked') },
    },
    clients: {},
    windows: {},
  } as unknown as ReturnType<WebHost['state']>;
  const host: WebHost = {
    session: 'test',
    version: '0',
    state: () => state,
    onEvent: (cb) => (listeners.add(cb), () => listeners.delete(cb)),
    screen: (id) =>
      state.panes[id]
        ? { cols: 20, rows: 3, viewportRows: () => rows, history: () => ['old line'], cursor: () => ({ x: 0, y: 0, visible: true }), onChange: (cb) => (changes.add(cb), () => changes.delete(cb)) }
        : undefined,
    write: (pane, data) => void writes.push([pane, data]),
    answerAsk: (id, answer) => (answers.push([id, answer]), id === 'a1'),
    prompt: async (pane, text) => (writes.push([pane, `${text}\r`]), { sent: true }),
    audit: (r) => void audits.push(r),
    log: () => undefined,
  };
  return {
    host, writes, audits, state, answers,
    setRows(r: string[]) { rows = r; for (const c of changes) c(); },
    event() { for (const l of listeners) l({ type: 'pane_agent_status_changed' }); },
  };
}

const settings = (over: Partial<WebSettings> = {}): WebSettings => ({ bind: '127.0.0.1', port: 0, readOnly: false, hosts: [], allowRemote: false, ...over });

async function started(t: import('node:test').TestContext, over: Partial<WebSettings> = {}) {
  const f = fakeHost();
  const web = await WebServer.start(settings(over), f.host);
  t.after(() => web.stop());
  const port = web.status().port!;
  const origin = `http://127.0.0.1:${port}`;
  return { ...f, web, port, origin };
}

function http(port: number, o: { method?: string; path?: string; headers?: Record<string, string>; body?: string | Buffer }) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: o.method ?? 'GET', path: o.path ?? '/', headers: { host: `127.0.0.1:${port}`, ...o.headers } }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(o.body);
  });
}

async function pair(s: { port: number; origin: string; web: WebServer }, readOnly = false): Promise<string> {
  const token = new URL(s.web.pair(readOnly).url).hash.slice(1);
  const r = await http(s.port, { method: 'POST', path: '/api/pair', headers: { origin: s.origin, 'content-type': 'application/json' }, body: JSON.stringify({ token }) });
  assert.equal(r.status, 200, r.body);
  const cookie = String(r.headers['set-cookie']);
  assert.match(cookie, /HttpOnly/);
  assert.match(cookie, /SameSite=Strict/);
  return cookie.split(';')[0];
}

/** Opens the page's socket; resolves with it and its messages, or rejects with the refusal's status. */
function socket(port: number, headers: Record<string, string>) {
  return new Promise<{ ws: WebSocket; msgs: Array<Record<string, unknown>> }>((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`, { headers });
    const msgs: Array<Record<string, unknown>> = [];
    ws.on('message', (d) => msgs.push(JSON.parse(String(d))));
    ws.on('open', () => resolve({ ws, msgs }));
    ws.on('unexpected-response', (_req, res) => reject(new Error(`status ${res.statusCode}`)));
    ws.on('error', reject);
  });
}

test('Host and Origin checks: loopback names on any port, listed names; rebinding names and foreign origins refused', () => {
  const cfg = { bind: '127.0.0.1', hosts: ['box.tail1234.ts.net'] };
  assert.ok(hostAllowed('127.0.0.1:7681', cfg));
  assert.ok(hostAllowed('localhost:9000', cfg), 'ssh -L to another local port');
  assert.ok(hostAllowed('[::1]:7681', cfg));
  assert.ok(hostAllowed('box.tail1234.ts.net', cfg));
  for (const h of [undefined, '', 'evil.example:7681', 'localhost.evil.example', '127.0.0.1.nip.io:7681', 'a'.repeat(400), 'local host', 'localhost:99999999']) assert.ok(!hostAllowed(h, cfg), String(h));
  assert.ok(!hostAllowed('0.0.0.0:7681', { bind: '0.0.0.0', hosts: [] }), 'a wildcard bind is no name');
  assert.ok(originAllowed('http://127.0.0.1:7681', '127.0.0.1:7681', true));
  assert.ok(originAllowed(undefined, '127.0.0.1:7681', false));
  for (const o of [undefined, 'null', 'http://evil.example', 'http://127.0.0.1:7682', 'file://', 'http://u:p@127.0.0.1:7681', 'garbage'])
    assert.ok(!originAllowed(o, '127.0.0.1:7681', true), String(o));
});

test('plain HTTP off loopback is refused; TLS off loopback still needs allow_remote', () => {
  assert.throws(() => checkSettings(settings({ bind: '0.0.0.0' })), /plain HTTP/);
  assert.throws(() => checkSettings(settings({ bind: '192.168.1.5', tlsCert: '/c', tlsKey: '/k' })), /allow_remote/);
  assert.throws(() => checkSettings(settings({ bind: 'a b' })), /not an address/);
  assert.doesNotThrow(() => checkSettings(settings({ bind: '192.168.1.5', tlsCert: '/c', tlsKey: '/k', allowRemote: true })));
  assert.doesNotThrow(() => checkSettings(settings({ bind: 'localhost' })));
});

test('the page is served with a strict CSP to a good Host, refused to a rebinding Host; xterm.js comes from node_modules', async (t) => {
  const s = await started(t);
  const page = await http(s.port, {});
  assert.equal(page.status, 200);
  assert.match(String(page.headers['content-security-policy']), /script-src 'self'/);
  assert.equal(page.headers['x-frame-options'], 'DENY');
  assert.match(page.body, /\/vendor\/xterm\.css/);
  assert.doesNotMatch(page.body, /https?:\/\/(?!127)/, 'nothing from another site');
  const xterm = await http(s.port, { path: '/vendor/xterm.js' });
  assert.equal(xterm.status, 200);
  assert.ok(xterm.body.length > 100_000);
  assert.equal((await http(s.port, { headers: { host: 'evil.example:80' } })).status, 421);
  assert.equal((await http(s.port, { path: '/../../etc/passwd' })).status, 404);
  assert.equal((await http(s.port, { path: '/vendor/../package.json' })).status, 404);
});

test('pairing: no Origin, a forged Origin, a wrong or reused token and oversized bodies are refused; a good token once gives a cookie', async (t) => {
  const s = await started(t);
  const token = new URL(s.web.pair(false).url).hash.slice(1);
  const post = (headers: Record<string, string>, body: string) => http(s.port, { method: 'POST', path: '/api/pair', headers: { 'content-type': 'application/json', ...headers }, body });
  assert.equal((await post({}, JSON.stringify({ token }))).status, 403, 'no Origin');
  assert.equal((await post({ origin: 'http://evil.example' }, JSON.stringify({ token }))).status, 403, 'forged Origin');
  assert.equal((await post({ origin: s.origin, 'sec-fetch-site': 'cross-site' }, JSON.stringify({ token }))).status, 403, 'cross-site fetch');
  assert.equal((await post({ origin: s.origin }, JSON.stringify({ token: 'x'.repeat(43) }))).status, 403, 'wrong token');
  assert.equal((await post({ origin: s.origin }, '\u0000\u00ff not json')).status, 403, 'binary junk');
  await assert.rejects(post({ origin: s.origin }, JSON.stringify({ token, pad: 'x'.repeat(10_000) })), 'oversized body: the connection is cut');
  const good = await post({ origin: s.origin }, JSON.stringify({ token }));
  assert.equal(good.status, 200);
  assert.match(String(good.headers['set-cookie']), /^castellan_web=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict/);
  assert.equal((await post({ origin: s.origin }, JSON.stringify({ token }))).status, 403, 'a token works once');
  assert.ok(s.audits.some((a) => a.action === 'pair' && a.outcome === 'paired' && typeof a.browser_session === 'string'));
});

test('pairing is rate-limited: after a burst of failures even a good token waits', () => {
  let now = 0;
  const p = new Pairing(() => now);
  const { token } = p.issue(false);
  for (let i = 0; i < 1000; i++) assert.equal(p.exchange(`${'A'.repeat(42)}${i % 10}`).ok, false);
  const r = p.exchange(token);
  assert.deepEqual(r, { ok: false, why: 'rate_limited' });
  now += 61_000;
  assert.equal(p.exchange(token).ok, true, 'the window passes');
  assert.ok(MAX_FAILURES <= 10);
});

test('the socket: no cookie, a forged Origin, a rebinding Host refused; a paired page gets the herd, needs-me first', async (t) => {
  const s = await started(t);
  const cookie = await pair(s);
  await assert.rejects(socket(s.port, { origin: s.origin }), /status 401/);
  await assert.rejects(socket(s.port, { origin: s.origin, cookie: 'castellan_web=' + 'A'.repeat(43) }), /status 401/);
  await assert.rejects(socket(s.port, { origin: 'http://evil.example', cookie }), /status 403/);
  await assert.rejects(socket(s.port, { cookie }), /status 403/, 'no Origin');
  await assert.rejects(socket(s.port, { origin: 'http://evil.example:1', host: 'evil.example:1', cookie }), /status 421/);
  const { ws, msgs } = await socket(s.port, { origin: s.origin, cookie });
  t.after(() => ws.close());
  await waitFor(() => msgs.find((m) => m.t === 'herd'), { message: 'herd' });
  const herd = msgs.find((m) => m.t === 'herd') as { rows: Array<{ pane: string; needsMe: boolean }> };
  assert.equal(herd.rows[0].pane, 'w1:p2', 'the blocked agent comes first');
  assert.equal(herd.rows[0].needsMe, true);
  assert.equal(s.writes.length, 0);
});

test('actions: typing only once turned on, answers only to a blocked agent, each audited with the browser session', async (t) => {
  const s = await started(t);
  const { ws, msgs } = await socket(s.port, { origin: s.origin, cookie: await pair(s) });
  t.after(() => ws.close());
  const hello = await waitFor(() => msgs.find((m) => m.t === 'hello'), { message: 'hello' });
  const errors = () => msgs.filter((m) => m.t === 'error').length;
  ws.send(JSON.stringify({ t: 'input', pane: 'w1:p1', data: 'rm -rf ~\r' }));
  await waitFor(() => errors() === 1, { message: 'typing refused' });
  ws.send(JSON.stringify({ t: 'answer', pane: 'w1:p1', answer: 'approve' }));
  await waitFor(() => errors() === 2, { message: 'answer to a working agent refused' });
  ws.send('{"t":"input","pane":"w1:p1","data":"x","extra":1}');
  ws.send(Buffer.from([0, 1, 2, 255]));
  await waitFor(() => errors() === 4, { message: 'malformed refused' });
  assert.deepEqual(s.writes, [], 'nothing typed');
  ws.send(JSON.stringify({ t: 'typing', pane: 'w1:p1', on: true }));
  ws.send(JSON.stringify({ t: 'input', pane: 'w1:p1', data: 'ls\r' }));
  ws.send(JSON.stringify({ t: 'answer', pane: 'w1:p2', answer: 'approve' }));
  await waitFor(() => s.writes.length === 2, { message: 'typed' });
  assert.deepEqual(s.writes, [['w1:p1', 'ls\r'], ['w1:p2', '\r']]);
  const acts = s.audits.filter((a) => a.kind === 'web' && a.browser_session === hello.browser && a.action !== 'pair').map((a) => a.action);
  assert.deepEqual(acts, ['typing_on', 'keys', 'approve']);
});

test('answers press the agent\'s own keys for the dialog on screen, apart: Claude\'s auto-mode fallback, Kilo\'s deny', async (t) => {
  const s = await started(t);
  const { ws, msgs } = await socket(s.port, { origin: s.origin, cookie: await pair(s) });
  t.after(() => ws.close());
  await waitFor(() => msgs.find((m) => m.t === 'hello'), { message: 'hello' });
  // Claude in auto mode without its check: "No" is selected, so approve is Down then Enter (Enter alone would refuse).
  s.setRows([' Do you want to proceed?', ' ❯ No', '   Yes']);
  ws.send(JSON.stringify({ t: 'answer', pane: 'w1:p2', answer: 'approve' }));
  await waitFor(() => s.writes.length === 2, { message: 'two keys', observe: () => s.writes });
  assert.deepEqual(s.writes, [['w1:p2', '\x1b[B'], ['w1:p2', '\r']]);
  // Kilo: Esc opens "Tell Kilo what to do differently"; a plain deny confirms it empty, a message is typed there.
  s.setRows(['  △ Permission required', '  Allow once   Allow always   Reject']);
  (s.state.panes['w1:p2']!.agent as { agent: string }).agent = 'kilo';
  s.writes.length = 0;
  const t0 = Date.now();
  ws.send(JSON.stringify({ t: 'answer', pane: 'w1:p2', answer: 'deny' }));
  await waitFor(() => s.writes.length === 2, { message: 'Esc, Enter', observe: () => s.writes });
  assert.ok(Date.now() - t0 >= 250, 'the second key waits: a lone Escape with Enter right behind it reads as Alt+Enter');
  assert.deepEqual(s.writes, [['w1:p2', '\x1b'], ['w1:p2', '\r']]);
  s.writes.length = 0;
  ws.send(JSON.stringify({ t: 'answer', pane: 'w1:p2', answer: 'deny', message: 'use make check' }));
  await waitFor(() => s.writes.length === 2, { message: 'Esc, then the message', observe: () => s.writes });
  assert.deepEqual(s.writes, [['w1:p2', '\x1b'], ['w1:p2', 'use make check\r']]);
});

test('a read-only pairing looks but never acts; revoke closes its page and its cookie stops working', async (t) => {
  const s = await started(t);
  const cookie = await pair(s, true);
  const { ws, msgs } = await socket(s.port, { origin: s.origin, cookie });
  assert.equal((await waitFor(() => msgs.find((m) => m.t === 'hello'))).read_only, true);
  ws.send(JSON.stringify({ t: 'answer', pane: 'w1:p2', answer: 'approve' }));
  ws.send(JSON.stringify({ t: 'typing', pane: 'w1:p1', on: true }));
  ws.send(JSON.stringify({ t: 'prompt', pane: 'w1:p1', text: 'hi' }));
  await waitFor(() => msgs.filter((m) => m.t === 'error').length === 3, { message: 'refused' });
  assert.deepEqual(s.writes, []);
  assert.equal(s.audits.filter((a) => a.outcome === 'refused').length, 3);
  const closed = new Promise<number>((r) => ws.on('close', (code) => r(code)));
  assert.equal(s.web.pairing.revoke(), 1);
  assert.equal(await closed, 4401);
  await assert.rejects(socket(s.port, { origin: s.origin, cookie }), /status 401/);
});

test('an oversized message closes the socket (1009) and types nothing; a pane opens with its screen and streams changes', async (t) => {
  const s = await started(t);
  const cookie = await pair(s);
  const a = await socket(s.port, { origin: s.origin, cookie });
  a.ws.send(JSON.stringify({ t: 'typing', pane: 'w1:p1', on: true }));
  const closed = new Promise<number>((r) => a.ws.on('close', (code) => r(code)));
  a.ws.send(JSON.stringify({ t: 'input', pane: 'w1:p1', data: 'y'.repeat(100_000) }));
  assert.equal(await closed, 1009);
  assert.deepEqual(s.writes, []);
  const b = await socket(s.port, { origin: s.origin, cookie });
  t.after(() => b.ws.close());
  b.ws.send(JSON.stringify({ t: 'open', pane: 'w1:p1' }));
  const screen = await waitFor(() => b.msgs.find((m) => m.t === 'screen'), { message: 'screen' });
  assert.deepEqual(screen.lines, ['hello', '', '']);
  assert.deepEqual(screen.history, ['old line']);
  assert.deepEqual([...s.web.watched()], ['w1:p1']);
  s.setRows(['hello', 'world', '']);
  const frame = await waitFor(() => b.msgs.find((m) => m.t === 'frame'), { message: 'frame' });
  assert.deepEqual(frame.rows, { 1: 'world' }, 'only the changed row');
  s.setRows(['world', 'more', '']);
  const scrolled = await waitFor(() => b.msgs.find((m) => m.t === 'frame' && m.scroll), { message: 'scroll frame' });
  assert.deepEqual({ scroll: scrolled.scroll, rows: scrolled.rows }, { scroll: 1, rows: { 1: 'more' } }, 'the page scrolls one line, then gets one row');
  s.event();
  await waitFor(() => b.msgs.filter((m) => m.t === 'herd').length >= 2, { message: 'herd pushed on an event' });
});

test('governance questions reach pages (also ones that connect later) and are answered as a client would; read-only cannot', async (t) => {
  const s = await started(t);
  const a = await socket(s.port, { origin: s.origin, cookie: await pair(s) });
  t.after(() => a.ws.close());
  await waitFor(() => a.msgs.find((m) => m.t === 'hello'));
  s.web.asked({ ask: { id: 'a1', title: 'Bash', message: 'rm -rf build', timeout_ms: 30000, pane: 'w1:p2' } });
  const ask = await waitFor(() => a.msgs.find((m) => m.t === 'ask'), { message: 'ask' });
  assert.equal(ask.message, 'rm -rf build');
  const ro = await socket(s.port, { origin: s.origin, cookie: await pair(s, true) });
  t.after(() => ro.ws.close());
  await waitFor(() => ro.msgs.find((m) => m.t === 'ask'), { message: 'a later page sees the open question' });
  ro.ws.send(JSON.stringify({ t: 'ask_answer', id: 'a1', answer: 'allow' }));
  await waitFor(() => ro.msgs.find((m) => m.t === 'error'), { message: 'read-only refused' });
  assert.deepEqual(s.answers, []);
  a.ws.send(JSON.stringify({ t: 'ask_answer', id: 'a1', answer: 'allow' }));
  a.ws.send(JSON.stringify({ t: 'ask_answer', id: 'a1; rm', answer: 'allow' }));
  await waitFor(() => s.answers.length === 1 && a.msgs.some((m) => m.t === 'error'), { message: 'answered' });
  assert.deepEqual(s.answers, [['a1', 'allow']]);
  assert.ok(s.audits.some((r) => r.action === 'ask_allow' && r.outcome === 'accepted' && r.ask === 'a1'));
  s.web.asked({ ask_done: { id: 'a1', answer: 'allow' } });
  await waitFor(() => a.msgs.find((m) => m.t === 'ask_done'), { message: 'ask_done' });
  assert.equal(s.web.status().pages, 2, 'pages count as people who can answer');
});

test('a slow client (headers never finished) is cut off, and the pairing QR code is drawn for a terminal', async (t) => {
  const s = await started(t);
  const sock = connect(s.port, '127.0.0.1');
  t.after(() => sock.destroy());
  const t0 = Date.now();
  const closed = new Promise<number>((r) => sock.on('close', () => r(Date.now() - t0)));
  sock.on('error', () => undefined);
  sock.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${s.port}\r\nX-Slow: `);
  const keep = setInterval(() => sock.writable && sock.write('a'), 500);
  t.after(() => clearInterval(keep));
  const ms = await closed;
  assert.ok(ms < 9000, `cut after ${ms} ms`);
  const qr = await qrText(s.web.pair(false).url);
  assert.ok(qr.split('\n').length > 10 && /[\u2580-\u2588]/.test(qr), qr);
});

test('scrolledBy finds a scroll only where the shifted screen matches', () => {
  assert.equal(scrolledBy(['a', 'b', 'c', 'd'], ['b', 'c', 'd', 'e']), 1);
  assert.equal(scrolledBy(['a', 'b', 'c', 'd'], ['c', 'd', 'e', 'f']), 2);
  assert.equal(scrolledBy(['a', 'b', 'c', 'd'], ['a', 'b', 'c', 'x']), 0, 'a changed bottom row is no scroll');
  assert.equal(scrolledBy(['', '', '', ''], ['', '', '', 'x']), 0, 'blank rows prove nothing');
  assert.equal(scrolledBy(['a', 'b'], ['a', 'b']), 0);
  assert.equal(scrolledBy(['a', 'b', '', ''], ['b', 'c', 'd', '']), 1, 'blank rows written after the scroll');
  assert.equal(scrolledBy(['a', 'b', 'c'], ['x', 'y', 'z']), 0);
  assert.equal(scrolledBy(['a'], ['b', 'c']), 0);
});

test('over TLS (the user\'s certificate) the page is served by https and the session cookie is Secure', async (t) => {
  const { execFileSync } = await import('node:child_process');
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const https = await import('node:https');
  const dir = mkdtempSync(join(tmpdir(), 'cas-web-tls-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=localhost'], { stdio: 'ignore' });
  } catch {
    t.skip('no openssl to make a test certificate');
    return;
  }
  const s = await started(t, { tlsCert: cert, tlsKey: key });
  assert.match(s.web.url, /^https:\/\//);
  const token = new URL(s.web.pair(false).url).hash.slice(1);
  const origin = `https://127.0.0.1:${s.port}`;
  const r = await new Promise<{ status: number; cookie: string }>((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port: s.port, method: 'POST', path: '/api/pair', rejectUnauthorized: false, headers: { host: `127.0.0.1:${s.port}`, origin, 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, cookie: String(res.headers['set-cookie']) }));
    });
    req.on('error', reject);
    req.end(JSON.stringify({ token }));
  });
  assert.equal(r.status, 200);
  assert.match(r.cookie, /; Secure/);
});

test('a page that stops answering pings (a phone that slept) is cut, freeing its slot', async (t) => {
  const s = await started(t, { heartbeatMs: 100 });
  const a = await socket(s.port, { origin: s.origin, cookie: await pair(s) });
  t.after(() => a.ws.terminate());
  await waitFor(() => s.web.status().pages === 1, { message: 'one page' });
  (a.ws as unknown as { _socket: { pause(): void } })._socket.pause();
  await waitFor(() => s.web.status().pages === 0, { message: 'the silent page is cut', timeoutMs: 5000 });
});
