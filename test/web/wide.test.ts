// The herd across sessions and machines with fake peers: ids that carry their session, hostile ids that reach nothing,
// slow and lost peers that never stall the page; browser sessions kept across restarts, and files that fail closed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import WebSocket from 'ws';
import { WebServer } from '../../src/web/server.js';
import { formatPaneRef, parsePaneRef } from '../../src/web/pane-ref.js';
import { PaneFeed } from '../../src/web/feed.js';
import { Pairing, SESSION_TTL_MS, loadSessions } from '../../src/web/pairing.js';
import { cleanRows } from '../../src/web/wide.js';
import type { Peer, PeerClient, WebHost, WebSettings } from '../../src/web/types.js';
import { waitFor } from '../support/wait-for.js';

test('pane ids carry their session and machine; traversal, unknown shapes, `local` and oversized ids are refused', () => {
  assert.deepEqual(parsePaneRef('w1:p2'), { pane: 'w1:p2' });
  assert.deepEqual(parsePaneRef('work/w1:p2'), { session: 'work', pane: 'w1:p2' });
  assert.deepEqual(parsePaneRef('box:work/w1:p2'), { machine: 'box', session: 'work', pane: 'w1:p2' });
  for (const r of ['box:work/w1:p2', 'work/w1:p2', 'w3:p4']) assert.equal(formatPaneRef(parsePaneRef(r)!), r);
  for (const bad of ['../w1:p1', '../../etc/w1:p1', './w1:p1', 'a/../b/w1:p1', '..:x/w1:p1', 'x:../w1:p1', '.hidden/w1:p1', '-x/w1:p1', 'local:work/w1:p1', 'box:/w1:p1', ':work/w1:p1', 'a/b/w1:p1', 'work/w1:p1/', 'work\\w1:p1', 'wörk/w1:p1', 'work/w1:p1\n', `${'a'.repeat(64)}/w1:p1`.replace(/^a/, 'aa'), `${'m'.repeat(64)}:${'s'.repeat(64)}/w1:p1${'9'.repeat(200)}`, 'x'.repeat(10_000), '', 42, null, undefined, { session: 'x' }])
    assert.equal(parsePaneRef(bad), undefined, JSON.stringify(bad));
});

test('another server\'s rows are data: bad fields dropped, text bounded and without control characters', () => {
  const rows = cleanRows([
    { pane: 'w1:p1', window: 'w1', title: 'a\u001b]52;c;AAAA\u0007b', state: 'blocked', since: 5, needsMe: true, inView: false, message: 'x'.repeat(5000) },
    { pane: '../w1:p1', state: 'idle' },
    { pane: 'w1:p2', state: 'evil' },
    'garbage',
    null,
  ]);
  assert.equal(rows.length, 1);
  assert.ok(!/[\u0000-\u001f]/.test(rows[0].title));
  assert.equal(rows[0].message!.length, 500);
  assert.deepEqual(cleanRows('not rows'), []);
  assert.equal(cleanRows(Array.from({ length: 5000 }, (_, i) => ({ pane: `w1:p${i}`, state: 'idle' }))).length, 500);
});

test('a burst of more than a screen between two frames reaches the page as the lines between, from the history', async () => {
  let top = 0;
  let rows = ['l1', 'l2', 'l3'];
  const all = Array.from({ length: 100 }, (_, i) => `l${i + 1}`);
  const changes = new Set<() => void>();
  const screen = {
    cols: 10, rows: 3,
    viewportRows: () => rows, history: () => [], cursor: () => ({ x: 0, y: 0, visible: true }),
    top: () => top, range: (a: number, b: number) => all.slice(a, b),
    onChange: (cb: () => void) => (changes.add(cb), () => changes.delete(cb)),
  };
  const sent: Array<Record<string, unknown>> = [];
  const feed = new PaneFeed(screen, 'w1:p1', { send: (m) => void sent.push(m as never), slow: () => false });
  feed.start();
  // 20 lines scrolled at once: the old screen (l1-l3) scrolls into the page's history, l4-l20 follow it, l21-l23 are the screen.
  top = 20;
  rows = ['l21', 'l22', 'l23'];
  for (const c of changes) c();
  const f = await waitFor(() => sent.find((m) => m.t === 'frame'), { message: 'frame' });
  assert.equal(f.scroll, 3);
  assert.deepEqual(f.above, all.slice(0, 20));
  assert.deepEqual(f.rows, { 0: 'l21', 1: 'l22', 2: 'l23' });
  // One line: an exact scroll of one, with the line that left as the history has it.
  top = 21;
  rows = ['l22', 'l23', 'l24'];
  for (const c of changes) c();
  const g = await waitFor(() => sent.filter((m) => m.t === 'frame')[1], { message: 'second frame' });
  assert.deepEqual({ scroll: g.scroll, above: g.above, rows: g.rows }, { scroll: 1, above: ['l21'], rows: { 2: 'l24' } });
  feed.stop();
});

// ---- browser sessions across restarts ----

const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'cst-webs-'));
  return { dir: d, file: join(d, 'web-sessions-default.json'), logs: [] as string[] };
};

test('browser sessions survive a restart: only hashes on disk, 0600, expiry kept, revoke clears the file', (t) => {
  const s = tmp();
  t.after(() => rmSync(s.dir, { recursive: true, force: true }));
  let now = 1_000_000;
  const store = { file: s.file, log: (m: string) => void s.logs.push(m) };
  const a = new Pairing(() => now, store);
  const r = a.exchange(a.issue(true).token);
  assert.ok(r.ok);
  const text = readFileSync(s.file, 'utf8');
  assert.ok(!text.includes(r.cookie), 'the cookie itself is never written');
  assert.equal(statSync(s.file).mode & 0o777, 0o600);
  const b = new Pairing(() => now, store);
  assert.deepEqual(b.check(r.cookie), r.session, 'a new server knows the browser');
  now += SESSION_TTL_MS + 1;
  assert.equal(new Pairing(() => now, store).check(r.cookie), undefined, 'expired');
  now -= SESSION_TTL_MS;
  b.revoke();
  assert.equal(existsSync(s.file), false);
  assert.equal(new Pairing(() => now, store).check(r.cookie), undefined);
  assert.deepEqual(s.logs, []);
});

test('a sessions file that is corrupt, binary, huge, open to others, a link or forged signs nobody in and says why', (t) => {
  const s = tmp();
  t.after(() => rmSync(s.dir, { recursive: true, force: true }));
  const good = new Pairing(Date.now, { file: s.file, log: () => undefined });
  const r = good.exchange(good.issue(false).token);
  assert.ok(r.ok);
  const valid = readFileSync(s.file, 'utf8');
  const entry = (JSON.parse(valid) as { sessions: Array<Record<string, unknown>> }).sessions[0];
  const cases: Array<[string, () => void]> = [
    ['not JSON', () => writeFileSync(s.file, valid.slice(0, 20), { mode: 0o600 })],
    ['binary', () => writeFileSync(s.file, Buffer.from([0xff, 0xfe, 0, 1, 2, 0x7b]), { mode: 0o600 })],
    ['huge', () => writeFileSync(s.file, Buffer.alloc(10 * 1024 * 1024, 0x20), { mode: 0o600 })],
    ['open to others', () => (writeFileSync(s.file, valid), chmodSync(s.file, 0o644))],
    ['a symlink', () => (rmSync(s.file), writeFileSync(`${s.file}.real`, valid, { mode: 0o600 }), symlinkSync(`${s.file}.real`, s.file))],
    ['a directory', () => (rmSync(s.file, { force: true }), rmSync(`${s.file}.real`, { force: true }), mkdirSync(s.file))],
    ['never expires', () => (rmSync(s.file, { recursive: true, force: true }), writeFileSync(s.file, JSON.stringify({ version: 1, sessions: [{ ...entry, expires: Number(entry.created) + 10 * SESSION_TTL_MS }] }), { mode: 0o600 }))],
    ['an extra field', () => writeFileSync(s.file, JSON.stringify({ version: 1, sessions: [{ ...entry, read_only: false, admin: true }] }), { mode: 0o600 })],
    ['a wrong version', () => writeFileSync(s.file, JSON.stringify({ version: 2, sessions: [entry] }), { mode: 0o600 })],
    ['a bad hash', () => writeFileSync(s.file, JSON.stringify({ version: 1, sessions: [{ ...entry, hash: 'x' }] }), { mode: 0o600 })],
  ];
  for (const [what, make] of cases) {
    make();
    const logs: string[] = [];
    const p = new Pairing(Date.now, { file: s.file, log: (m) => void logs.push(m) });
    assert.equal(p.check(r.cookie), undefined, what);
    assert.equal(p.counts.sessions, 0, what);
    assert.equal(logs.length, 1, `${what}: one message in the server log`);
    assert.match(logs[0], /nobody is signed in/, what);
  }
  // Missing: nobody, and nothing to say.
  rmSync(s.file, { force: true });
  const logs: string[] = [];
  assert.deepEqual(loadSessions({ file: s.file, log: (m) => void logs.push(m) }, Date.now()), []);
  assert.deepEqual(logs, []);
});

// ---- the page's server with fake peers ----

/** A peer session answering like a castellan server: its herd, frames for web.view, and web.act recorded. */
function fakePeer(session: string, o: { hang?: 'connect' | 'herd'; machine?: string } = {}) {
  const requests: Array<{ method: string; params: Record<string, unknown> }> = [];
  const listeners = new Set<(m: Record<string, unknown>) => void>();
  let seq = 0;
  let connects = 0;
  const client: PeerClient = {
    async request<T>(method: string, params?: unknown, opts?: { id?: string }): Promise<T> {
      requests.push({ method, params: (params ?? {}) as Record<string, unknown> });
      if (method === 'web.herd') {
        if (o.hang === 'herd') return new Promise<T>(() => undefined);
        return { session, rows: [{ pane: 'w1:p1', window: 'w1', title: `${session} shell`, state: 'idle', since: 1, needsMe: false, inView: false }, { pane: 'w1:p2', window: 'w1', title: 'agent', agent: 'claude', state: 'blocked', since: 2, needsMe: true, inView: false }] } as T;
      }
      if (method === 'web.view') {
        setTimeout(() => { for (const l of listeners) l({ id: opts?.id, web: { t: 'frame', pane: 'w1:p1', rows: { 1: `${session} frame` }, cursor: { x: 0, y: 0, visible: true } } }); }, 20);
        return { t: 'screen', pane: 'w1:p1', cols: 20, rows: 3, history: [], lines: [`${session} screen`, '', ''], cursor: { x: 0, y: 0, visible: true } } as T;
      }
      return { ok: true } as T;
    },
    notify: () => undefined,
    nextId: () => `s${++seq}`,
    onMessage: (cb) => (listeners.add(cb), () => listeners.delete(cb)),
    onClosed: () => undefined,
    close: () => undefined,
  };
  const peer: Peer = {
    session,
    ...(o.machine ? { machine: o.machine } : {}),
    connectMs: 300,
    connect: () => (connects++, o.hang === 'connect' ? new Promise<PeerClient>(() => undefined) : Promise.resolve(client)),
  };
  return { peer, requests, acts: () => requests.filter((r) => r.method === 'web.act' || r.method === 'web.view'), connects: () => connects };
}

function fakeHost(peers: Peer[]) {
  const writes: Array<[string, string]> = [];
  const audits: Array<Record<string, unknown>> = [];
  const state = { panes: { 'w1:p1': { id: 'w1:p1', window: 'w1', command: ['bash'], agent: { state: 'idle', since: 1 } } }, clients: {}, windows: {} } as unknown as ReturnType<WebHost['state']>;
  const host: WebHost = {
    session: 'default',
    version: '0',
    state: () => state,
    onEvent: () => () => undefined,
    screen: () => undefined,
    write: (pane, data) => void writes.push([pane, data]),
    answerAsk: () => false,
    prompt: async () => ({ sent: true }),
    audit: (r) => void audits.push(r),
    log: () => undefined,
    peers: async () => peers,
  };
  return { host, writes, audits };
}

const settings = (over: Partial<WebSettings> = {}): WebSettings => ({ bind: '127.0.0.1', port: 0, readOnly: false, hosts: [], allowRemote: false, ...over });

function post(port: number, path: string, body: string, origin: string) {
  return new Promise<{ status: number; cookie: string }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path, headers: { host: `127.0.0.1:${port}`, origin, 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, cookie: String(res.headers['set-cookie'] ?? '').split(';')[0] }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function page(web: WebServer, cookie?: string) {
  const port = web.status().port!;
  const origin = `http://127.0.0.1:${port}`;
  if (!cookie) {
    const r = await post(port, '/api/pair', JSON.stringify({ token: new URL(web.pair(false).url).hash.slice(1) }), origin);
    assert.equal(r.status, 200);
    cookie = r.cookie;
  }
  const msgs: Array<Record<string, unknown>> = [];
  const ws = await new Promise<WebSocket>((resolve, reject) => {
    const w = new WebSocket(`ws://127.0.0.1:${port}/ws`, { headers: { origin, cookie: cookie! } });
    w.on('message', (d) => msgs.push(JSON.parse(String(d))));
    w.on('open', () => resolve(w));
    w.on('unexpected-response', (_q, res) => reject(new Error(`status ${res.statusCode}`)));
    w.on('error', reject);
  });
  return { ws, msgs, cookie: cookie! };
}

test('every session and machine in one herd; a slow or lost one never stalls it; actions and views go to the pane\'s own server', async (t) => {
  const second = fakePeer('second');
  const slow = fakePeer('slow', { hang: 'connect' });
  const box = fakePeer('default', { machine: 'box', hang: 'herd' });
  const f = fakeHost([second.peer, slow.peer, box.peer]);
  const web = await WebServer.start(settings(), f.host);
  t.after(() => web.stop());
  const started = Date.now();
  const p = await page(web);
  t.after(() => p.ws.close());
  const herds = () => p.msgs.filter((m) => m.t === 'herd') as Array<{ rows: Array<{ pane: string; stale?: boolean }>; sources?: Array<{ session: string; machine?: string; ok: boolean; error?: string }> }>;
  // The page's own panes at once, whatever the others do.
  await waitFor(() => herds().length > 0, { message: 'first herd' });
  assert.ok(Date.now() - started < 2000, 'not held up by a peer that never answers');
  const last = await waitFor(() => {
    const h = herds().at(-1)!;
    return h.rows.some((r) => r.pane === 'second/w1:p2') && (h.sources ?? []).filter((s) => !s.ok && s.error).length === 2 ? h : undefined;
  }, { timeoutMs: 8000, message: 'peers in the herd, the slow ones marked' });
  assert.equal(last.rows[0].pane, 'second/w1:p2', 'needs me first across sessions');
  assert.ok(last.rows.some((r) => r.pane === 'w1:p1'));
  assert.ok(!last.rows.some((r) => r.pane.startsWith('slow/') || r.pane.startsWith('box:')), 'nothing invented for peers that never answered');
  for (const s of last.sources!.filter((x) => !x.ok)) assert.match(s.error!, /did not answer within/);

  const errors = () => p.msgs.filter((m) => m.t === 'error') as Array<{ message: string }>;
  const refusedWith = async (msg: Record<string, unknown>, re: RegExp) => {
    const n = errors().length;
    p.ws.send(JSON.stringify(msg));
    const e = await waitFor(() => errors()[n], { message: `refusal of ${JSON.stringify(msg).slice(0, 80)}` });
    assert.match(e.message, re, JSON.stringify(msg).slice(0, 80));
  };
  // Hostile ids: a session that does not run, traversal, a machine not in the profiles, `local`, oversized, a slow peer.
  await refusedWith({ t: 'open', pane: 'nosuch/w1:p1' }, /no session nosuch/);
  await refusedWith({ t: 'answer', pane: 'nosuch/w1:p2', answer: 'approve' }, /no session nosuch/);
  await refusedWith({ t: 'open', pane: '../second/w1:p1' }, /malformed/);
  await refusedWith({ t: 'open', pane: 'second/../../w1:p1' }, /malformed/);
  await refusedWith({ t: 'prompt', pane: 'ghost:second/w1:p1', text: 'rm -rf ~' }, /no machine ghost/);
  await refusedWith({ t: 'open', pane: 'box:other/w1:p1' }, /no machine box with session other/);
  await refusedWith({ t: 'open', pane: 'local:second/w1:p1' }, /malformed/);
  await refusedWith({ t: 'open', pane: `${'s'.repeat(60_000)}/w1:p1` }, /malformed/);
  await refusedWith({ t: 'answer', pane: 'slow/w1:p2', answer: 'approve' }, /slow is not answering/);
  await refusedWith({ t: 'input', pane: 'second/w1:p1', data: 'ls\r' }, /typing is off/);
  assert.deepEqual([second, slow, box].flatMap((x) => x.acts()), [], 'nothing sent to any server');
  assert.deepEqual(f.writes, [], 'nothing typed here');

  // A pane of the second session, live, and acted on there with this browser session.
  p.ws.send(JSON.stringify({ t: 'open', pane: 'second/w1:p1' }));
  const screen = await waitFor(() => p.msgs.find((m) => m.t === 'screen'), { message: 'screen' });
  assert.equal(screen.pane, 'second/w1:p1');
  assert.deepEqual(screen.lines, ['second screen', '', '']);
  const frame = await waitFor(() => p.msgs.find((m) => m.t === 'frame'), { message: 'frame' });
  assert.deepEqual({ pane: frame.pane, rows: frame.rows }, { pane: 'second/w1:p1', rows: { 1: 'second frame' } });
  p.ws.send(JSON.stringify({ t: 'typing', pane: 'second/w1:p1', on: true }));
  p.ws.send(JSON.stringify({ t: 'input', pane: 'second/w1:p1', data: 'ls\r' }));
  p.ws.send(JSON.stringify({ t: 'answer', pane: 'second/w1:p2', answer: 'deny', message: 'not now' }));
  await waitFor(() => second.requests.filter((r) => r.method === 'web.act').length === 3, { message: 'three acts sent' });
  const hello = p.msgs.find((m) => m.t === 'hello')!;
  const acts = second.requests.filter((r) => r.method === 'web.act').map((r) => r.params);
  assert.deepEqual(acts.map((a) => [a.t, a.pane, a.browser_session, a.via]), [['typing', 'w1:p1', hello.browser, 'default'], ['input', 'w1:p1', hello.browser, 'default'], ['answer', 'w1:p2', hello.browser, 'default']]);
  assert.equal(acts[2].message, 'not now');
  assert.deepEqual(f.writes, [], 'nothing typed into the serving session');
  p.ws.send(JSON.stringify({ t: 'close', pane: 'second/w1:p1' }));
  await waitFor(() => second.requests.some((r) => r.method === 'events.unsubscribe'), { message: 'view ended there' });
});

test('a restart keeps the phone signed in (sessions file); --revoke clears it; a corrupt file signs nobody in', async (t) => {
  const s = tmp();
  t.after(() => rmSync(s.dir, { recursive: true, force: true }));
  const f = fakeHost([]);
  const logs: string[] = [];
  f.host.log = (m) => void logs.push(m);
  let web = await WebServer.start(settings({ sessionsFile: s.file }), f.host);
  const first = await page(web);
  first.ws.close();
  await web.stop();
  web = await WebServer.start(settings({ sessionsFile: s.file }), f.host);
  t.after(() => web.stop());
  const again = await page(web, first.cookie);
  await waitFor(() => again.msgs.find((m) => m.t === 'hello'), { message: 'signed in after a restart' });
  again.ws.close();
  web.pairing.revoke();
  assert.equal(existsSync(s.file), false);
  await web.stop();
  // Corrupt: fails closed, with a line in the server log.
  const good = new Pairing(Date.now, { file: s.file, log: () => undefined });
  const r = good.exchange(good.issue(false).token);
  assert.ok(r.ok);
  writeFileSync(s.file, '{"version":1,"sessions":[{"hash":', { mode: 0o600 });
  web = await WebServer.start(settings({ sessionsFile: s.file }), f.host);
  await assert.rejects(page(web, `castellan_web=${r.cookie}`), /status 401/);
  assert.ok(logs.some((l) => /nobody is signed in/.test(l)), logs.join('\n'));
});
