// When the socket path cannot serve pi's extension (no server, an older server without hook.event, a server that never
// answers, one that talks nonsense) every event still goes through the spawned bridge, in order, pi is never kept
// waiting past the bridge's own deadlines, and it can exit.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, runNode } from '../support/temp-env.js';
import { waitFor } from '../support/wait-for.js';
import { loadHandlers, PI_DRIVER, recorded, recorderArgv, writeExtension, type Handler } from '../support/pi-extension.js';
import { readFileSync, writeFileSync } from 'node:fs';

type Behaviour = 'silent' | 'old' | 'garbage' | 'slow-deny';

/** A stand-in server: `old` answers like a castellan without hook.event, `silent` reads and never answers, `garbage` floods one endless line. */
function fakeServer(path: string, how: Behaviour) {
  const seen: Array<{ method: string; params: Record<string, unknown> }> = [];
  const socks = new Set<net.Socket>();
  const server = net.createServer((s) => {
    socks.add(s);
    s.on('close', () => socks.delete(s));
    s.on('error', () => undefined);
    let buf = '';
    s.on('data', (d) => {
      buf += d.toString();
      for (let i = buf.indexOf('\n'); i !== -1; i = buf.indexOf('\n')) {
        const msg = JSON.parse(buf.slice(0, i)) as { id?: string; method: string; params: Record<string, unknown> };
        buf = buf.slice(i + 1);
        seen.push({ method: msg.method, params: msg.params });
        if (how === 'silent') continue;
        if (how === 'garbage') {
          s.write('x'.repeat(2 * 1024 * 1024));
          continue;
        }
        if (how === 'slow-deny') {
          setTimeout(() => s.write(JSON.stringify({ id: msg.id, result: { action: 'reported', state: 'working', gate: 'block', answer: { block: true, reason: 'castellan: slow no' } } }) + '\n'), 300);
          continue;
        }
        if (msg.method === 'pane.report_agent') s.write(JSON.stringify({ id: msg.id, result: { pane_id: msg.params.pane_id, state: msg.params.state } }) + '\n');
        else if (msg.id !== undefined) s.write(JSON.stringify({ id: msg.id, error: { code: 'unknown_method', message: `unknown method "${msg.method}"` } }) + '\n');
      }
    });
  });
  return {
    seen,
    listen: () => new Promise<void>((r) => server.listen(path, r)),
    close: () => new Promise<void>((r) => {
      for (const s of socks) s.destroy();
      server.close(() => r());
    }),
  };
}

describe('the pi extension when the socket cannot serve it', () => {
  let dir: string;
  const saved = { ...process.env };
  let n = 0;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'cst-pifb-'));
  });
  after(() => {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
    rmSync(dir, { recursive: true, force: true });
  });

  /** Loads a fresh copy of the extension for `socket`, with the recorder (or `argv`) as its bridge. */
  async function load(socket: string, argv?: string[]) {
    const id = ++n;
    const log = join(dir, `spawned-${id}.log`);
    Object.assign(process.env, { CASTELLAN_ENV: '1', CASTELLAN_SOCKET: socket, CASTELLAN_PANE_ID: 'w1:p1', HOME: dir, XDG_STATE_HOME: join(dir, 'state') });
    const h = await loadHandlers(writeExtension(dir, `ext-${id}`, argv ?? recorderArgv(log)));
    return { h, log };
  }

  /** Fires pi's events of one turn; the state events return at once, the tool_call answer is awaited. */
  async function turn(h: Map<string, Handler>) {
    const t0 = performance.now();
    for (const e of ['agent_start', 'turn_start']) assert.equal(await h.get(e)!({ type: e }, {}), undefined);
    const stateMs = performance.now() - t0;
    const gate = await h.get('tool_call')!({ type: 'tool_call', toolName: 'bash', toolCallId: 'c', input: { command: 'ls' } }, {});
    const gateMs = performance.now() - t0;
    assert.equal(await h.get('agent_end')!({ type: 'agent_end', messages: [] }, {}), undefined);
    return { stateMs, gateMs, gate };
  }

  const order = ['agent_start', 'turn_start', 'tool_call', 'agent_end'];

  test('no server: every event goes to the spawned bridge, in order, and pi is not kept waiting', async () => {
    const { h, log } = await load(join(dir, 'none.sock'));
    const r = await turn(h);
    assert.ok(r.stateMs < 100, `state events returned in ${r.stateMs} ms`);
    assert.equal(r.gate, undefined, 'the recorder answers nothing and exits 0: allow');
    await waitFor(() => recorded(log).length === 4, { timeoutMs: 15_000, message: 'four spawns' });
    assert.deepEqual(recorded(log).map((x) => x.event), order);
  });

  test('a server without hook.event: the real bridge delivers every report to it, in order', async () => {
    const sock = join(dir, 'old.sock');
    const srv = fakeServer(sock, 'old');
    await srv.listen();
    try {
      const { h } = await load(sock, [process.execPath, BIN]);
      for (const e of ['agent_start', 'turn_start']) await h.get(e)!({ type: e }, {});
      await h.get('agent_end')!({ type: 'agent_end', messages: [] }, {});
      await waitFor(() => srv.seen.filter((x) => x.method === 'pane.report_agent').length === 3, { timeoutMs: 20_000, message: 'three reports' });
      const reports = srv.seen.filter((x) => x.method === 'pane.report_agent');
      assert.deepEqual(reports.map((x) => x.params.state), ['working', 'working', 'done']);
      const seqs = reports.map((x) => x.params.seq as number);
      assert.deepEqual([...seqs].sort((a, b) => a - b), seqs, 'seqs increase');
      // Told once that the method is unknown, the extension stops asking on that connection.
      assert.equal(srv.seen.filter((x) => x.method === 'hook.event').length, 1);
    } finally {
      await srv.close();
    }
  });

  for (const how of ['silent', 'garbage'] as const)
    test(`a server that ${how === 'silent' ? 'never answers' : 'answers one endless line'}: the bridge takes over within the deadlines`, async () => {
      const sock = join(dir, `${how}.sock`);
      const srv = fakeServer(sock, how);
      await srv.listen();
      try {
        const { h, log } = await load(sock);
        const r = await turn(h);
        assert.ok(r.stateMs < 100, `state events returned in ${r.stateMs} ms`);
        // agent_start waits out its 800 ms reply deadline; later events skip the socket for a while (no 800 ms each).
        assert.ok(r.gateMs < 6000, `tool_call answered in ${r.gateMs} ms`);
        assert.equal(r.gate, undefined);
        await waitFor(() => recorded(log).length === 4, { timeoutMs: 15_000, message: 'four spawns' });
        assert.deepEqual(recorded(log).map((x) => x.event), order);
      } finally {
        await srv.close();
      }
    });

  test('a pi with nothing else to wait for stays alive for the answer (the connection is held only while a call waits)', async () => {
    const sock = join(dir, 'slow.sock');
    const srv = fakeServer(sock, 'slow-deny');
    await srv.listen();
    try {
      const ext = writeExtension(dir, 'ext-slow', recorderArgv(join(dir, 'slow-spawned.log')));
      const steps = join(dir, 'slow-steps.json');
      const out = join(dir, 'slow-out.json');
      writeFileSync(steps, JSON.stringify([{ event: 'tool_call', payload: { toolName: 'bash', toolCallId: 's', input: { command: 'ls' } }, await: true }]));
      const r = await runNode(['--import', import.meta.resolve('tsx'), PI_DRIVER, ext, steps, out], { env: { ...(process.env as Record<string, string>), CASTELLAN_SOCKET: sock }, cwd: dir, timeoutMs: 20_000 });
      assert.equal(r.code, 0, `the driver exited ${r.code} (13: it quit with the answer still pending) ${r.stderr}`);
      const a = (JSON.parse(readFileSync(out, 'utf8')) as { answers: Array<{ answer: { block?: boolean; reason?: string } }> }).answers[0].answer;
      assert.deepEqual(a, { block: true, reason: 'castellan: slow no' });
    } finally {
      await srv.close();
    }
  });

  test('pi can exit while the socket is open to a server that never answers', async () => {
    const sock = join(dir, 'exit.sock');
    const srv = fakeServer(sock, 'silent');
    await srv.listen();
    try {
      const log = join(dir, 'exit-spawned.log');
      const ext = writeExtension(dir, 'ext-exit', recorderArgv(log));
      const steps = join(dir, 'exit-steps.json');
      writeFileSync(steps, JSON.stringify([{ event: 'agent_start' }, { event: 'agent_end' }, { event: 'session_shutdown', payload: { reason: 'quit' }, await: true }]));
      const r = await runNode(['--import', import.meta.resolve('tsx'), PI_DRIVER, ext, steps, join(dir, 'exit-out.json')], {
        env: { ...(process.env as Record<string, string>), CASTELLAN_SOCKET: sock },
        cwd: dir,
        timeoutMs: 20_000,
      });
      assert.equal(r.timedOut, false, 'the driver exited by itself');
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(recorded(log).map((x) => x.event), ['agent_start', 'agent_end', 'session_shutdown']);
    } finally {
      await srv.close();
    }
  });
});
