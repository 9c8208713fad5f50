// hook.decide under hostile input: too big, malformed, nested, binary, from an untrusted (or booby-trapped) repository,
// dribbled in slowly; and the bridge against a server whose hook.decide answers are slow or nonsense (it decides itself).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { askServerDecision, DECIDE_REPLY_MS } from '../../src/integrations/server-decide.js';
import { makeTempEnv, type TempEnv } from '../support/temp-env.js';
import { fakeLineServer, runHook } from './bridge-support.js';

type Reply = { result?: Record<string, unknown>; error?: { code: string; message: string } };

/** One raw request line (or several pieces of one) on a fresh connection; resolves with the reply to id 1. */
function raw(socket: string, pieces: string[], gapMs = 0, timeoutMs = 10_000): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const s = net.connect(socket);
    let buf = '';
    const t = setTimeout(() => (s.destroy(), reject(new Error('no reply in time'))), timeoutMs);
    s.setEncoding('utf8').on('data', (d: string) => {
      buf += d;
      const i = buf.indexOf('\n');
      if (i === -1) return;
      clearTimeout(t);
      s.destroy();
      resolve(JSON.parse(buf.slice(0, i)) as Reply);
    });
    s.on('error', reject);
    s.once('connect', async () => {
      for (const p of pieces) {
        s.write(p);
        if (gapMs) await new Promise((r) => setTimeout(r, gapMs));
      }
    });
  });
}

const readAudit = (env: TempEnv): string[] => {
  try {
    return readFileSync(join(env.stateDir, 'audit.jsonl'), 'utf8').trim().split('\n').filter(Boolean);
  } catch {
    return [];
  }
};

const line = (params: unknown) => `${JSON.stringify({ id: 1, method: 'hook.decide', params })}\n`;

describe('hook.decide: hostile requests', () => {
  let env: TempEnv;
  const params = (over: Record<string, unknown> = {}) => ({
    phase: 'pre',
    tool: 'shell',
    argv: ['/bin/sh', '-c', 'ls'],
    cwd: env.home,
    prompt: 'defer',
    home: env.home,
    trust_file: join(env.stateDir, 'trust.json'),
    audit_log: join(env.stateDir, 'audit.jsonl'),
    session: 'default',
    ...over,
  });
  const call = (over: Record<string, unknown> = {}) => raw(env.socket, [line(params(over))]);
  before(async () => {
    env = makeTempEnv();
    mkdirSync(join(env.home, '.castellan'), { recursive: true });
    writeFileSync(join(env.home, '.castellan', 'config.toml'), '[governance.plan_verify]\nenabled = true\nhigh_risk_tools = ["deploy"]\n');
    const r = await env.cli(['server', 'start']);
    assert.equal(r.code, 0, r.stderr);
  });
  after(() => env.cleanup());

  test('too big: a 2 MiB argv item is refused, a 5 MiB line too; the server goes on', async () => {
    assert.equal((await call({ argv: ['x'.repeat(2 * 1024 * 1024)] })).error?.code, 'invalid_params');
    assert.equal((await call({ argv: ['x'.repeat(5 * 1024 * 1024)] })).error?.code, 'line_too_long');
    assert.equal((await call()).result?.decided, true);
  });

  test('malformed: missing, mistyped, relative or NUL paths, unknown keys', async () => {
    const bad: Array<Record<string, unknown>> = [
      { phase: undefined },
      { phase: 'during' },
      { argv: 'ls' },
      { argv: [1, 2] },
      { cwd: 'relative/dir' },
      { cwd: '/tmp/a\u0000b' },
      { home: '' },
      { prompt: 'maybe' },
      { pid: -1 },
      { pane_id: 'p1' },
      { extra: true },
      { plan: { workflow_step: 3 } },
    ];
    for (const b of bad) assert.equal((await call(b)).error?.code, 'invalid_params', JSON.stringify(b));
    assert.equal((await raw(env.socket, ['{"id":1,"method":"hook.decide","params":[]}\n'])).error?.code, 'invalid_params');
    assert.ok((await raw(env.socket, ['{"id":1,"method":"hook.decide","params":{"phase":\n'])).error);
  });

  test('nested: a plan deeper than the protocol allows is refused; a deep but legal one is judged (denied), not crashed on', async () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 80; i++) deep = { a: deep };
    assert.equal((await call({ tool: 'deploy', plan: { workflow_plan: deep } })).error?.code, 'invalid_params');
    let legal: unknown = 'x';
    for (let i = 0; i < 50; i++) legal = [legal];
    const r = await call({ tool: 'deploy', plan: { workflow_plan: legal } });
    assert.equal(r.result?.decided, true);
    assert.equal(r.result?.decision, 'deny');
    assert.equal(r.result?.source, 'plan_verify');
  });

  test('binary: control bytes and odd unicode in argv, tool and cwd are judged, not crashed on', async () => {
    const junk = '\u0000\u001b[31m\u00ff\ud800\ufffd\u0007';
    const r = await call({ tool: `t${junk}`, argv: [junk, '\u0000'], cwd: `/nonexistent/${junk.replace('\u0000', '')}`, agent_id: junk });
    assert.equal(r.result?.decided, true, JSON.stringify(r));
    assert.equal(r.result?.decision, 'allow');
  });

  test('an untrusted repository: its castellan.toml cannot loosen, and a FIFO, a binary file or a huge file there does not stall the server', async () => {
    const repo = join(env.home, 'repo');
    mkdirSync(join(repo, '.git'), { recursive: true });
    mkdirSync(join(repo, '.castellan'), { recursive: true });
    writeFileSync(join(repo, 'castellan.toml'), '[governance.plan_verify]\nenabled = false\n\n[governance.permissions]\ndefault = "allow"\n');
    // Plan verify stays on: an untrusted file may only switch it on.
    assert.equal((await call({ tool: 'deploy', cwd: repo })).result?.decision, 'deny');
    execFileSync('mkfifo', [join(repo, '.castellan', 'local.toml')]);
    const t0 = performance.now();
    assert.equal((await call({ cwd: repo })).result?.decided, true);
    assert.ok(performance.now() - t0 < 5000, 'a FIFO is not opened for reading');
    writeFileSync(join(repo, 'castellan.toml'), Buffer.from([0x5b, 0x00, 0xff, 0xfe, 0x0a, 0x00]));
    assert.equal((await call({ cwd: repo })).result?.decided, true);
    writeFileSync(join(repo, 'castellan.toml'), '# x\n'.repeat(200_000));
    assert.equal((await call({ cwd: repo })).result?.decided, true);
    assert.equal((await call({ tool: 'deploy', cwd: repo })).result?.decision, 'deny');
  });

  test('slow: a request read after the bridge\'s deadline is not decided (the bridge decides it), and leaves no record', async () => {
    const before = readAudit(env).length;
    const r = await call({ deadline: Date.now() - 1, pid: 777 });
    assert.equal(r.result?.decided, false);
    assert.equal(readAudit(env).length, before);
  });

  test('slow: a request dribbled in over a second is answered; the server stays responsive meanwhile', async () => {
    const l = line(params());
    const pieces = Array.from({ length: 10 }, (_, i) => l.slice((i * l.length) / 10, ((i + 1) * l.length) / 10));
    const slow = raw(env.socket, pieces, 100);
    assert.equal((await raw(env.socket, ['{"id":1,"method":"ping"}\n'])).result?.pong, true);
    assert.equal((await slow).result?.decided, true);
  });
});

type Mode = 'silent' | 'nonsense' | 'declines';

/** A server that answers pane.report_agent but misbehaves on hook.decide. */
function fakeServer(path: string, mode: Mode): Promise<{ close(): Promise<void> }> {
  return fakeLineServer(path, (line, s) => {
    const m = JSON.parse(line) as { id: unknown; method: string };
    if (m.method === 'pane.report_agent') s.write(`${JSON.stringify({ id: m.id, result: { pane_id: 'w1:p1', state: 'working' } })}\n`);
    else if (m.method !== 'hook.decide' || mode === 'silent') return;
    else if (mode === 'nonsense') s.write(`${JSON.stringify({ id: m.id, result: { decided: true, decision: 'yes please', source: 1 } })}\n`);
    else s.write(`${JSON.stringify({ id: m.id, result: { decided: false, why: 'ask the bridge' } })}\n`);
  });
}

describe('the bridge when hook.decide misbehaves: it decides itself, against its own config', { concurrency: true }, () => {
  let dir: string;
  const servers: Array<{ close(): Promise<void> }> = [];
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'cst-hd-'));
    mkdirSync(join(dir, '.castellan'), { recursive: true });
    writeFileSync(join(dir, '.castellan', 'config.toml'), '[governance.permissions]\nshell = "deny"\n');
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.close()));
    rmSync(dir, { recursive: true, force: true });
  });
  for (const mode of ['silent', 'nonsense', 'declines'] as const) {
    test(`${mode}: the shell call is still denied by the local pipeline`, async () => {
      const socket = join(dir, `${mode}.sock`);
      servers.push(await fakeServer(socket, mode));
      const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, LANG: 'C.UTF-8', CASTELLAN_ENV: '1', CASTELLAN_SOCKET: socket, CASTELLAN_PANE_ID: 'w1:p1' };
      const payload = JSON.stringify({ session_id: 's', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls' }, cwd: dir });
      const r = await runHook({ agent: 'claude', event: 'PreToolUse', feed: { kind: 'whole', data: payload }, env, cwd: dir });
      assert.equal(r.hung, false);
      assert.equal(JSON.parse(r.stdout).hookSpecificOutput.permissionDecision, 'deny', r.stderr);
      // Silent: the bridge waited out its decide deadline, then the local pipeline (node start and load on a loaded box).
      if (mode === 'silent') assert.ok(r.ms >= DECIDE_REPLY_MS, `${r.ms} ms`);
      assert.ok(r.ms < DECIDE_REPLY_MS + 8000, `${r.ms} ms`);
      assert.ok(!existsSync(join(dir, 'pwned')));
    });
  }
});

test('a server that leaves the call to the bridge says why, cut to 200 characters; nothing is decided', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cst-hd-why-'));
  const servers: Array<{ close(): Promise<void> }> = [];
  try {
    const ask = async (why: unknown) => {
      const socket = join(dir, `s${servers.length}.sock`);
      servers.push(await fakeLineServer(socket, (line, s) => {
        const m = JSON.parse(line) as { id: unknown };
        s.write(`${JSON.stringify({ id: m.id, result: { decided: false, why } })}\n`);
      }));
      const said: string[] = [];
      const r = await askServerDecision(
        { phase: 'pre', tool: 'shell', argv: ['ls'], cwd: dir, toolInput: {}, agentId: 'claude', prompt: 'defer', env: {}, paths: { home: dir, trustFile: join(dir, 't'), auditLog: join(dir, 'a'), session: 'default', socket } },
        { onUndecided: (w) => said.push(w) },
      );
      return { r, said };
    };
    assert.deepEqual(await ask('a PreToolUse hook or a question in the UI decides it'), { r: undefined, said: ['a PreToolUse hook or a question in the UI decides it'] });
    const long = await ask('x'.repeat(5000));
    assert.equal(long.r, undefined);
    assert.equal(long.said[0].length, 200);
    // A why that is not a string is not passed on.
    assert.deepEqual(await ask({ nested: ['why'] }), { r: undefined, said: [] });
  } finally {
    await Promise.all(servers.map((s) => s.close()));
    rmSync(dir, { recursive: true, force: true });
  }
});
