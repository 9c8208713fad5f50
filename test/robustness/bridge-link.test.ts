// The state report and hook.decide share one connection (bridge-link.ts): one connect per tool call, and a server that
// breaks that connection, answers one request and not the other, or answers nonsense on it never waves a call through.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type net from 'node:net';
import { REPLY_TIMEOUT_MS } from '../../src/integrations/bridge.js';
import { DECIDE_REPLY_MS } from '../../src/integrations/server-decide.js';
import { fakeLineServer, gateAnswer, runHook } from './bridge-support.js';

type Answer = (m: { id: unknown; method: string }, s: net.Socket) => void;

const reply = (s: net.Socket, id: unknown, result: unknown) => s.write(`${JSON.stringify({ id, result })}\n`);
const REPORTED = { pane_id: 'w1:p1', state: 'working' };

describe('one connection for the report and the decision', { concurrency: true }, () => {
  let dir: string;
  const servers: Array<{ close(): Promise<void> }> = [];
  let seq = 0;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'cst-link-'));
    // The bridge's own config denies shell: a call the server fails to decide is denied locally, never allowed.
    mkdirSync(join(dir, '.castellan'), { recursive: true });
    writeFileSync(join(dir, '.castellan', 'config.toml'), '[governance.permissions]\nshell = "deny"\n');
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  /** A fake server; records, per connection, the methods asked on it. */
  async function serve(answer: Answer): Promise<{ socket: string; connections: string[][] }> {
    const socket = join(dir, `s${++seq}.sock`);
    const connections: string[][] = [];
    const seen = new WeakMap<net.Socket, string[]>();
    servers.push(
      await fakeLineServer(socket, (line, s) => {
        let list = seen.get(s);
        if (!list) seen.set(s, (list = connections[connections.push([]) - 1]));
        let m: { id: unknown; method: string };
        try {
          m = JSON.parse(line);
        } catch {
          return;
        }
        list.push(m.method);
        answer(m, s);
      }),
    );
    return { socket, connections };
  }

  const call = (socket: string, command = 'ls', event = 'PreToolUse') =>
    runHook({
      agent: 'claude',
      event,
      feed: { kind: 'whole', data: JSON.stringify({ session_id: 's', hook_event_name: event, tool_name: 'Bash', tool_input: { command }, cwd: dir, prompt: 'hi' }) },
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, LANG: 'C.UTF-8', CASTELLAN_ENV: '1', CASTELLAN_SOCKET: socket, CASTELLAN_PANE_ID: 'w1:p1' },
      cwd: dir,
    });

  test('a tool call the server decides: one connection carries the report, then hook.decide', async () => {
    const srv = await serve((m, s) => reply(s, m.id, m.method === 'hook.decide' ? { decided: true, decision: 'allow', source: 'policy' } : REPORTED));
    const r = await call(srv.socket);
    assert.equal(r.hung, false);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '', 'the server allowed it: no answer printed');
    assert.deepEqual(srv.connections, [['pane.report_agent', 'hook.decide']]);
  });

  test('a state-only event: one connection, the report only', async () => {
    const srv = await serve((m, s) => reply(s, m.id, REPORTED));
    const r = await call(srv.socket, 'ls', 'UserPromptSubmit');
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(srv.connections, [['pane.report_agent']]);
  });

  test('the server answers the report, then drops the connection: the bridge decides itself and denies', async () => {
    const srv = await serve((m, s) => (m.method === 'hook.decide' ? s.destroy() : reply(s, m.id, REPORTED)));
    const r = await call(srv.socket);
    assert.equal(r.hung, false);
    assert.equal(gateAnswer('claude', r.stdout)?.decision, 'deny', r.stderr);
    assert.ok(r.ms < DECIDE_REPLY_MS + 8000, `${r.ms} ms`);
  });

  test('the server drops the connection on the report: hook.decide fails with it, and the bridge denies', async () => {
    const srv = await serve((m, s) => (m.method === 'pane.report_agent' ? s.destroy() : reply(s, m.id, { decided: true, decision: 'allow', source: 'policy' })));
    const r = await call(srv.socket);
    assert.equal(gateAnswer('claude', r.stdout)?.decision, 'deny', r.stderr);
  });

  test('the server decides but never answers the report: the decision stands, and the bridge exits after the report deadline', async () => {
    const srv = await serve((m, s) => {
      if (m.method === 'hook.decide') reply(s, m.id, { decided: true, decision: 'deny', source: 'policy', reason: 'the fake says no' });
    });
    const r = await call(srv.socket, 'echo fine');
    assert.equal(r.hung, false);
    const a = gateAnswer('claude', r.stdout);
    assert.equal(a?.decision, 'deny');
    assert.match(a!.reason, /the fake says no/);
    assert.ok(r.ms >= REPLY_TIMEOUT_MS, `${r.ms} ms: the bridge waited for the report`);
  });

  test('nonsense on the shared connection (a reply for another id, a decision that is not one, garbage): denied locally', async () => {
    const srv = await serve((m, s) => {
      s.write('}{ not json\n');
      if (m.method === 'hook.decide') {
        reply(s, 'not-' + String(m.id), { decided: true, decision: 'allow', source: 'policy' });
        reply(s, m.id, { decided: true, decision: 'sure', source: 'policy' });
      } else reply(s, m.id, REPORTED);
    });
    const r = await call(srv.socket);
    assert.equal(gateAnswer('claude', r.stdout)?.decision, 'deny', r.stderr);
    assert.ok(!existsSync(join(dir, 'pwned')));
  });

  test('a server that accepts and says nothing: report and decision both wait out their own deadlines, then the bridge denies', async () => {
    const srv = await serve(() => undefined);
    const r = await call(srv.socket);
    assert.equal(r.hung, false);
    assert.equal(gateAnswer('claude', r.stdout)?.decision, 'deny', r.stderr);
    assert.ok(r.ms >= DECIDE_REPLY_MS, `${r.ms} ms`);
    // The first connection asked both (the local pipeline's events.emit comes on its own afterwards).
    assert.deepEqual(srv.connections[0], ['pane.report_agent', 'hook.decide']);
  });
});
