// The web page and machines: a machine from the profiles (over a real sshd) is in the page's herd, its pane typed into
// from the page, and the keys audited by that machine's server with the browser session.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'node:http';
import WebSocket from 'ws';
import { sshdSkipReason } from '../support/sshd.js';
import { waitFor } from '../support/wait-for.js';
import { startMachines } from '../machines/fixture.js';

const skip = sshdSkipReason();

function post(url: URL, body: string) {
  return new Promise<{ status: number; cookie: string }>((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method: 'POST', path: '/api/pair', headers: { origin: url.origin, 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, cookie: String(res.headers['set-cookie'] ?? '').split(';')[0] }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

test('a machine\'s panes are in the page; typed into from it; audited there', { skip, timeout: 120_000 }, async (t) => {
  const { local, remote } = await startMachines(t);
  assert.equal((await remote.cli(['server', 'start'])).code, 0);
  assert.equal((await local.cli(['machine', 'add', 'box', 'castellan-test'])).code, 0);
  assert.equal((await local.cli(['server', 'start'])).code, 0);
  const paired = await local.cli(['web', '--pair', '--port', '0', '--json']);
  assert.equal(paired.code, 0, paired.stderr);
  const url = new URL((JSON.parse(paired.stdout) as { url: string }).url);
  const r = await post(url, JSON.stringify({ token: url.hash.slice(1) }));
  assert.equal(r.status, 200);
  const msgs: Array<Record<string, unknown>> = [];
  const ws = await new Promise<WebSocket>((resolve, reject) => {
    const w = new WebSocket(`ws://${url.host}/ws`, { headers: { origin: url.origin, cookie: r.cookie } });
    w.on('message', (d) => msgs.push(JSON.parse(String(d))));
    w.on('open', () => resolve(w));
    w.on('error', reject);
  });
  t.after(() => ws.close());
  const rows = () => (msgs.filter((m) => m.t === 'herd').at(-1)?.rows ?? []) as Array<{ pane: string; machine?: string }>;
  await waitFor(() => rows().some((x) => x.pane === 'box:default/w1:p1' && x.machine === 'box'), { timeoutMs: 30_000, message: 'the machine\'s pane in the herd', observe: () => JSON.stringify(msgs.filter((m) => m.t === 'herd').at(-1)) });
  ws.send(JSON.stringify({ t: 'open', pane: 'box:default/w1:p1' }));
  await waitFor(() => msgs.find((m) => m.t === 'screen' && m.pane === 'box:default/w1:p1'), { timeoutMs: 15_000, message: 'its screen' });
  ws.send(JSON.stringify({ t: 'typing', pane: 'box:default/w1:p1', on: true }));
  ws.send(JSON.stringify({ t: 'input', pane: 'box:default/w1:p1', data: 'echo from-the-web-$((6*7))\r' }));
  await waitFor(async () => (await remote.call<{ lines: string[] }>('pane.read', { pane_id: 'w1:p1' })).lines.some((l) => l === 'from-the-web-42'), { timeoutMs: 15_000, message: 'typed on the machine' });
  await waitFor(() => msgs.find((m) => m.t === 'frame' && m.pane === 'box:default/w1:p1' && JSON.stringify(m.rows).includes('from-the-web-42')), { timeoutMs: 15_000, message: 'and seen live in the page' });
  const hello = msgs.find((m) => m.t === 'hello')!;
  const audit = readFileSync(join(remote.stateDir, 'audit.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
  const keys = audit.find((a) => a.kind === 'web' && a.action === 'keys');
  assert.ok(keys, JSON.stringify(audit));
  assert.equal(keys.browser_session, hello.browser);
  assert.equal(keys.via, 'default');
  assert.equal(keys.pane, 'w1:p1');
  // Not in this machine's pane.
  const here = await local.call<{ lines: string[] }>('pane.read', { pane_id: 'w1:p1' });
  assert.ok(!here.lines.some((l) => l.includes('from-the-web')));
});
