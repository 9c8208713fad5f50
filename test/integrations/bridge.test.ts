// `castellan hook` end to end: outside a pane (nothing), a real server over its real socket, a dead or hung server.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runBridge } from '../../src/integrations/bridge.js';
import { BIN, makeTempEnv, type TempEnv } from '../support/temp-env.js';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs the real CLI like an agent's hook runner does: payload on stdin (or stdin left open with `holdStdin`). */
function hook(args: string[], env: Record<string, string>, stdin?: string, opts: { holdStdin?: boolean } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [BIN, 'hook', ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: performance.now() - t0 });
    });
    child.stdin.on('error', () => {});
    if (stdin !== undefined) child.stdin.write(stdin);
    if (!opts.holdStdin) child.stdin.end();
    else setTimeout(() => child.stdin.end(), 8000).unref();
  });
}

const baseEnv = (home: string): Record<string, string> => ({ PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, LANG: 'C.UTF-8' });

/** A Unix socket that counts connections and never answers (a hung server, or a spy). */
async function silentServer(path: string): Promise<{ connections: () => number; close: () => Promise<void> }> {
  let n = 0;
  const socks = new Set<net.Socket>();
  const srv = net.createServer((s) => {
    n++;
    socks.add(s);
    s.on('error', () => {});
  });
  await new Promise<void>((r) => srv.listen(path, r));
  return {
    connections: () => n,
    close: () =>
      new Promise<void>((r) => {
        for (const s of socks) s.destroy();
        srv.close(() => r());
      }),
  };
}

describe('castellan hook outside a castellan pane', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'cst-hk-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('exits 0 at once, prints nothing, reads nothing, connects nowhere', async () => {
    const spy = await silentServer(join(dir, 'spy.sock'));
    try {
      // stdin stays open for 8 s: a bridge that read it would hang that long.
      const r = await hook(['claude', 'Stop'], { ...baseEnv(dir), CASTELLAN_SOCKET: join(dir, 'spy.sock'), CASTELLAN_PANE_ID: 'w1:p1' }, '{"session_id":"s"}', { holdStdin: true });
      assert.equal(r.code, 0);
      assert.equal(r.stdout, '');
      assert.equal(r.stderr, '');
      assert.ok(r.ms < 3000, `took ${Math.round(r.ms)} ms`);
      assert.equal(spy.connections(), 0);
      assert.ok(!existsSync(join(dir, '.local')), 'no state dir, no log');
    } finally {
      await spy.close();
    }
  });

  test('the installed command line does not even start node outside a pane', async () => {
    const { hookCommand } = await import('../../src/integrations/command-line.js');
    const cmd = hookCommand(['/nonexistent/node', '/nonexistent/castellan.js'], 'claude', 'Stop');
    const r = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const c = spawn('/bin/sh', ['-c', cmd], { env: baseEnv(dir), stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      c.stdout.on('data', (d) => (out += d));
      c.stderr.on('data', (d) => (out += d));
      c.on('close', (code) => resolve({ code, out }));
    });
    assert.deepEqual(r, { code: 0, out: '' });
  });
});

describe('castellan hook against a real server', () => {
  let env: TempEnv;
  let pane: string;
  let inPane: Record<string, string>;
  before(async () => {
    env = makeTempEnv();
    const r = await env.cli(['server', 'start']);
    assert.equal(r.code, 0, r.stderr);
    const list = await env.call<{ panes: Array<{ pane_id: string }> }>('pane.list');
    pane = list.panes[0].pane_id;
    inPane = { ...env.env, CASTELLAN_ENV: '1', CASTELLAN_PANE_ID: pane, CASTELLAN_SOCKET: env.socket };
  });
  after(() => env.cleanup());

  const badge = async () => (await env.call<{ agent: { name?: string; state: string; source?: string; message?: string; hook_locked: boolean } }>('pane.get', { pane_id: pane })).agent;

  test('a Claude turn: prompt → working, permission → blocked with the command, approve → working, Stop → done; silent, exit 0', async () => {
    const steps: Array<[string, object, string]> = [
      ['UserPromptSubmit', { session_id: 's1', hook_event_name: 'UserPromptSubmit', prompt: 'Please run TOOL' }, 'working'],
      ['PreToolUse', { session_id: 's1', tool_name: 'Bash', tool_input: { command: 'touch x' } }, 'working'],
      ['PermissionRequest', { session_id: 's1', tool_name: 'Bash', tool_input: { command: 'touch x' } }, 'blocked'],
      ['PostToolUse', { session_id: 's1', tool_name: 'Bash', tool_response: { stdout: '' } }, 'working'],
      ['MessageDisplay', { session_id: 's1', delta: 'text' }, 'working'],
      ['Stop', { session_id: 's1', last_assistant_message: 'Tool finished.' }, 'done'],
    ];
    for (const [event, payload, want] of steps) {
      const r = await hook(['claude', event], inPane, JSON.stringify(payload));
      assert.deepEqual([r.code, r.stdout, r.stderr], [0, '', ''], event);
      const b = await badge();
      assert.equal(b.state, want, `after ${event}`);
      assert.equal(b.name, 'claude');
      if (event === 'PermissionRequest') assert.equal(b.message, 'Bash: touch x');
    }
    const b = await badge();
    assert.equal(b.source, 'hook');
    assert.equal(b.hook_locked, true);
  });

  test('subagent events do not flip the pane', async () => {
    await hook(['claude', 'UserPromptSubmit'], inPane, '{"session_id":"s1"}');
    assert.equal((await badge()).state, 'working');
    const r = await hook(['claude', 'Stop'], inPane, JSON.stringify({ session_id: 's1', agent_id: 'sub-1', agent_type: 'Explore' }));
    assert.equal(r.code, 0);
    assert.equal((await badge()).state, 'working');
  });

  test('seq orders near-simultaneous hooks: an older report that arrives late is dropped', async () => {
    const o = { agent: 'claude', env: inPane, socket: env.socket, stateDir: env.stateDir };
    const now = Math.round(performance.timeOrigin * 1000) + 10_000_000_000; // later than any process start in this test run
    const a = await runBridge({ ...o, event: 'Stop', payload: {}, seq: now + 2 });
    assert.equal(a.action, 'reported');
    const late = await runBridge({ ...o, event: 'PreToolUse', payload: {}, seq: now + 1 });
    assert.equal(late.action, 'reported');
    assert.match(String(late.reply?.ignored), /stale seq/);
    assert.equal((await badge()).state, 'done');
    // Reset the ordering for the tests that follow (they use real process start times).
    await env.call('pane.reset_agent', { pane_id: pane });
  });

  test('idle_prompt does not wipe an unseen done; SessionEnd reports unknown and hands the pane back to heuristics', async () => {
    await hook(['claude', 'Stop'], inPane, '{"session_id":"s1"}');
    assert.equal((await badge()).state, 'done');
    await hook(['claude', 'Notification'], inPane, JSON.stringify({ session_id: 's1', notification_type: 'idle_prompt', message: 'Claude is waiting for your input' }));
    assert.equal((await badge()).state, 'done');
    await hook(['claude', 'SessionEnd'], inPane, JSON.stringify({ session_id: 's1', reason: 'prompt_input_exit' }));
    const b = await badge();
    assert.equal(b.hook_locked, false);
    assert.notEqual(b.source, 'hook');
  });

  test('Codex: notify from the hidden title thread is dropped, the main thread\'s is taken (without the hook lock)', async () => {
    await hook(['codex', 'SessionStart'], inPane, JSON.stringify({ session_id: 'main-1', source: 'startup' }));
    await hook(['codex', 'UserPromptSubmit'], inPane, JSON.stringify({ session_id: 'main-1', prompt: 'Please THINK' }));
    const title = JSON.stringify({ type: 'agent-turn-complete', 'thread-id': 'title-9', 'last-assistant-message': 'Mock side answer.' });
    let r = await hook(['codex', 'notify', title], inPane);
    assert.deepEqual([r.code, r.stdout], [0, '']);
    assert.equal((await badge()).state, 'working');
    await hook(['codex', 'Stop'], inPane, JSON.stringify({ session_id: 'main-1' }));
    r = await hook(['codex', 'notify', JSON.stringify({ type: 'agent-turn-complete', 'thread-id': 'main-1' })], inPane);
    const b = await badge();
    assert.equal(b.state, 'done');
    assert.equal(b.source, 'api');
    await hook(['codex', 'SessionEnd'], inPane, JSON.stringify({ session_id: 'main-1', reason: 'other' }));
    assert.equal((await badge()).hook_locked, false);
  });

  test('pi events from the extension, Gemini events from settings', async () => {
    await hook(['pi', 'agent_start'], inPane, '{"hook_event_name":"agent_start","type":"agent_start"}');
    assert.equal((await badge()).state, 'working');
    await hook(['pi', 'agent_end'], inPane, '{"hook_event_name":"agent_end","type":"agent_end","stop_reason":"aborted"}');
    assert.equal((await badge()).state, 'done');
    await hook(['gemini', 'BeforeAgent'], inPane, '{"session_id":"g","prompt":"hi"}');
    await hook(['gemini', 'Notification'], inPane, JSON.stringify({ session_id: 'g', notification_type: 'ToolPermission', message: 'm', details: { title: 'Confirm Shell Command', command: 'touch x' } }));
    const b = await badge();
    assert.deepEqual([b.name, b.state, b.message], ['gemini', 'blocked', 'Confirm Shell Command: touch x']);
  });

  test('garbage on stdin, unknown events: exit 0, silent, badge unchanged', async () => {
    for (const [args, stdin] of [
      [['claude', 'Stop'], 'not json {'],
      [['claude', 'NoSuchEvent'], '{}'],
      [['codex', 'notify'], ''],
    ] as Array<[string[], string]>) {
      const r = await hook(args, inPane, stdin);
      assert.deepEqual([r.code, r.stdout, r.stderr], [0, '', ''], args.join(' '));
    }
    // 'not json' Stop still maps (Stop needs no payload): done.
    assert.equal((await badge()).state, 'done');
  });

  test('a pane that does not exist: exit 0, silent, logged', async () => {
    const r = await hook(['claude', 'Stop'], { ...inPane, CASTELLAN_PANE_ID: 'w99:p99' }, '{}');
    assert.deepEqual([r.code, r.stdout, r.stderr], [0, '', '']);
    assert.match(readFileSync(join(env.stateDir, 'hook-bridge.log'), 'utf8'), /w99:p99 failed done: pane_not_found/);
  });
});

describe('castellan hook with no server to talk to', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'cst-hk-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('socket missing: exit 0 quickly, silent, a line in the bridge log', async () => {
    const env = { ...baseEnv(dir), CASTELLAN_ENV: '1', CASTELLAN_PANE_ID: 'w1:p1', CASTELLAN_SOCKET: join(dir, 'gone.sock') };
    const r = await hook(['claude', 'Stop'], env, '{}');
    assert.deepEqual([r.code, r.stdout, r.stderr], [0, '', '']);
    assert.ok(r.ms < 3000, `took ${Math.round(r.ms)} ms`);
    assert.match(readFileSync(join(dir, '.local/state/castellan/hook-bridge.log'), 'utf8'), /claude Stop pane=w1:p1 failed done: not_running/);
  });

  test('a server that accepts but never answers: exit 0 after the reply deadline, not hang', async () => {
    const srv = await silentServer(join(dir, 'hung.sock'));
    try {
      const env = { ...baseEnv(dir), CASTELLAN_ENV: '1', CASTELLAN_PANE_ID: 'w1:p1', CASTELLAN_SOCKET: join(dir, 'hung.sock') };
      // A well-formed tool call (an empty payload would now be denied as unreadable: test/robustness/bridge-fuzz.test.ts).
      const r = await hook(['claude', 'PreToolUse'], env, JSON.stringify({ tool_name: 'Bash', tool_input: { command: 'true' }, cwd: dir }));
      assert.deepEqual([r.code, r.stdout, r.stderr], [0, '', '']);
      assert.ok(r.ms < 4000, `took ${Math.round(r.ms)} ms`);
      // The state report connects; a tool event also opens governance's own link for its events.
      assert.ok(srv.connections() >= 1);
    } finally {
      await srv.close();
    }
  });

  test('stdin that never closes: the bridge stops waiting for it', async () => {
    const env = { ...baseEnv(dir), CASTELLAN_ENV: '1', CASTELLAN_PANE_ID: 'w1:p1', CASTELLAN_SOCKET: join(dir, 'gone.sock') };
    const r = await hook(['claude', 'Stop'], env, '{"partial":', { holdStdin: true });
    assert.equal(r.code, 0);
    assert.ok(r.ms < 4000, `took ${Math.round(r.ms)} ms`);
  });

  test('bad arguments inside a pane are a usage error (exit 2), outside a pane nothing', async () => {
    const inside = await hook([], { ...baseEnv(dir), CASTELLAN_ENV: '1', CASTELLAN_PANE_ID: 'w1:p1', CASTELLAN_SOCKET: join(dir, 'gone.sock') }, '');
    assert.equal(inside.code, 2);
    assert.equal(inside.stdout, '');
    const outside = await hook([], baseEnv(dir), '');
    assert.deepEqual([outside.code, outside.stdout, outside.stderr], [0, '', '']);
  });
});
