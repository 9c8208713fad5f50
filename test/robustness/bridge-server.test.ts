// The bridge's round trips on a tool-gating event: a server that answers garbage, the wrong shape, an error or nothing
// denies the call within a deadline; an over-size tool_input is refused by the bridge before sending and by agent.hook.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AGENT_HOOK_INPUT_MAX } from '../../src/integrations/agent-bridge.js';
import { TOOL_INPUT_MAX } from '../../src/api/methods/agent-hook.js';
import { MAX_LINE_BYTES } from '../../src/api/protocol.js';
import { loadBound, loadNote } from '../support/load.js';
import { makeTempEnv, type TempEnv } from '../support/temp-env.js';
import { fakeLineServer, GATE, gateAnswer, limiter, runHook } from './bridge-support.js';

type Mode = 'garbage' | 'empty-object' | 'error' | 'silent';

/** A castellan impostor: every request line gets the same kind of bad answer (or none). */
async function fakeServer(path: string, mode: Mode): Promise<{ requests: string[]; close(): Promise<void> }> {
  const requests: string[] = [];
  const srv = await fakeLineServer(path, (line, s) => {
    let id: unknown = null;
    try {
      const m = JSON.parse(line) as { id?: unknown; method?: string };
      id = m.id;
      requests.push(String(m.method));
    } catch {
      requests.push('?');
    }
    if (mode === 'silent') return;
    if (mode === 'garbage') s.write(`\x00\xff not json {{\n${JSON.stringify({ id, result: 'nonsense' })}\n`);
    if (mode === 'empty-object') s.write(`${JSON.stringify({ id, result: {} })}\n`);
    if (mode === 'error') s.write(`${JSON.stringify({ id, error: { code: 'invalid_params', message: 'payload.tool_input: tool_input is larger than allowed' } })}\n`);
  });
  return { requests, close: srv.close };
}

const AGENTS = ['claude', 'codex', 'gemini', 'pi'] as const;
const pool = limiter(4);
/** Shortens the agent.hook deadline (9 s for Claude, Codex and pi; 4 s for Gemini) so a silent server costs little. */
const REPLY_MS = 800;
/** Node start, the deadline and governance, on a loaded box; the default deadline (9 s) would not fit in it. */
const BOUND_MS = loadBound(6000, 8500);

describe('gating round trips to a server that misbehaves', { concurrency: true }, () => {
  let dir: string;
  const servers: Array<{ close(): Promise<void> }> = [];
  const sockets = {} as Record<Mode, string>;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cst-bs-'));
    for (const m of ['garbage', 'empty-object', 'error', 'silent'] as const) {
      sockets[m] = join(dir, `${m}.sock`);
      servers.push(await fakeServer(sockets[m], m));
    }
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.close()));
    rmSync(dir, { recursive: true, force: true });
  });
  const env = (socket: string, extra: Record<string, string> = {}) => ({ PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, LANG: 'C.UTF-8', CASTELLAN_ENV: '1', CASTELLAN_SOCKET: socket, CASTELLAN_PANE_ID: 'w1:p1', ...extra });

  // A pane started by `castellan agent start`: the call is allowed by policy (no config), so only agent.hook can deny it.
  for (const mode of ['garbage', 'empty-object', 'error', 'silent'] as const)
    for (const agent of AGENTS)
      test(`${agent}: agent.hook answered with ${mode} → denied`, () =>
        pool(async () => {
          const feed = { kind: 'whole' as const, data: JSON.stringify(GATE[agent].call(dir)) };
          const r = await runHook({ agent, event: GATE[agent].event, feed, env: env(sockets[mode], { CASTELLAN_AGENT_ID: 'a1', CASTELLAN_HOOK_REPLY_MS: String(REPLY_MS) }), cwd: dir });
          assert.equal(r.hung, false);
          assert.ok(r.ms < BOUND_MS, `took ${Math.round(r.ms)} ms (${loadNote()})`);
          const a = gateAnswer(agent, r.stdout);
          assert.equal(a?.decision, 'deny', `allowed (stdout ${JSON.stringify(r.stdout)})`);
          assert.match(a!.reason, /per-agent hooks of a1 could not be checked/);
          if (mode === 'error') assert.match(a!.reason, /tool_input is larger than allowed/);
        }),
      );

  test('a plain pane and a garbage server: an unreadable payload is still denied, a good call still decided', () =>
    pool(async () => {
      const bad = await runHook({ agent: 'codex', event: 'PreToolUse', feed: { kind: 'whole', data: '[]' }, env: env(sockets.garbage), cwd: dir });
      assert.equal(gateAnswer('codex', bad.stdout)?.decision, 'deny');
      const good = await runHook({ agent: 'codex', event: 'PreToolUse', feed: { kind: 'whole', data: JSON.stringify(GATE.codex.call(dir)) }, env: env(sockets.silent), cwd: dir });
      assert.ok(good.ms < BOUND_MS, `took ${Math.round(good.ms)} ms`);
      assert.equal(good.stdout, '', 'allowed by the default policy; a silent server only costs the report and event deadlines');
    }),
  );

  test('no server at all in an agent pane: denied at once', () =>
    pool(async () => {
      const r = await runHook({ agent: 'claude', event: 'PreToolUse', feed: { kind: 'whole', data: JSON.stringify(GATE.claude.call(dir)) }, env: env(join(dir, 'none.sock'), { CASTELLAN_AGENT_ID: 'a1' }), cwd: dir });
      assert.ok(r.ms < BOUND_MS);
      assert.equal(gateAnswer('claude', r.stdout)?.decision, 'deny');
    }),
  );
});

describe('an over-size tool_input on the way to the agent\'s own hooks', () => {
  let env: TempEnv;
  before(async () => {
    env = makeTempEnv();
    mkdirSync(join(env.home, '.castellan'), { recursive: true });
    writeFileSync(join(env.home, '.castellan', 'config.toml'), '');
    const r = await env.cli(['server', 'start']);
    assert.equal(r.code, 0, r.stderr);
  });
  after(() => env.cleanup());

  test('the bridge and agent.hook agree on the limit, and it fits the socket\'s line', () => {
    assert.equal(AGENT_HOOK_INPUT_MAX, TOOL_INPUT_MAX);
    assert.ok(TOOL_INPUT_MAX < MAX_LINE_BYTES);
  });

  test('agent.hook refuses it with a clear error', async () => {
    const content = 'z'.repeat(TOOL_INPUT_MAX + 1000);
    await assert.rejects(
      env.call('agent.hook', { agent_id: 'a1', hook_type: 'SubagentStop', payload: { tool: 'write', tool_name: 'Write', argv: ['/tmp/f'], tool_input: { file_path: '/tmp/f', content } } }, 10_000),
      (e: Error & { code?: string }) => e.code === 'invalid_params' && /tool_input is larger than 3145728 characters/.test(e.message),
    );
  });

  for (const mb of [3.5, 5])
    test(`a ${mb} MB Write in an agent pane is denied by the bridge at once, with the reason`, async () => {
      const payload = { session_id: 's1', hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: join(env.home, 'f'), content: 'w'.repeat(mb * 1024 * 1024) }, cwd: env.home };
      const r = await runHook({
        agent: 'claude',
        event: 'PreToolUse',
        feed: { kind: 'whole', data: JSON.stringify(payload) },
        env: { ...env.env, CASTELLAN_ENV: '1', CASTELLAN_SOCKET: env.socket, CASTELLAN_PANE_ID: 'w1:p1', CASTELLAN_AGENT_ID: 'a1' },
        cwd: env.home,
      });
      assert.ok(r.ms < BOUND_MS, `took ${Math.round(r.ms)} ms (${loadNote()})`);
      const a = gateAnswer('claude', r.stdout);
      assert.equal(a?.decision, 'deny');
      assert.match(a!.reason, /larger than the 3145728 the agent's own hooks accept/);
    });
});
