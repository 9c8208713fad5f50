// hook.decide on a real server socket, and the bridge taking its answer: the same decisions, events and audit records
// as the bridge's own pipeline, and nothing decided by the server that needs a hook process, a UI question or other paths.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempEnv, runNode, BIN, type TempEnv } from '../support/temp-env.js';

type Decided = { decided: true; decision: string; source: string; reason?: string; ok?: boolean } | { decided: false; why: string };

function base(env: TempEnv, over: Record<string, unknown> = {}): Record<string, unknown> {
  const state = env.stateDir;
  return { phase: 'pre', tool: 'shell', argv: ['/bin/sh', '-c', 'ls'], cwd: env.home, prompt: 'defer', home: env.home, trust_file: join(state, 'trust.json'), audit_log: join(state, 'audit.jsonl'), session: 'default', ...over };
}

const audit = (env: TempEnv): Array<Record<string, unknown>> => {
  try {
    return readFileSync(join(env.stateDir, 'audit.jsonl'), 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
  } catch {
    return [];
  }
};

async function hook(env: TempEnv, event: string, payload: unknown, extra: Record<string, string> = {}) {
  return runNode([BIN, 'hook', 'claude', event, JSON.stringify(payload)], {
    env: { ...env.env, CASTELLAN_ENV: '1', CASTELLAN_SOCKET: env.socket, CASTELLAN_PANE_ID: 'w1:p1', CASTELLAN_HOOK_DEBUG: '1', ...extra },
    cwd: env.home,
    timeoutMs: 20_000,
  });
}

const bridgeLog = (env: TempEnv) => {
  try {
    return readFileSync(join(env.stateDir, 'hook-bridge.log'), 'utf8');
  } catch {
    return '';
  }
};

describe('hook.decide on a real server', () => {
  let env: TempEnv;
  let repo: string;
  before(async () => {
    env = makeTempEnv();
    mkdirSync(join(env.home, '.castellan'), { recursive: true });
    // The user's own layer: write is denied, webfetch asks, a PostToolUse hook runs for "edit" only.
    writeFileSync(join(env.home, '.castellan', 'config.toml'), '[governance.permissions]\nwrite = "deny"\nwebfetch = "prompt"\n\n[[hooks.hooks]]\nevent = "PostToolUse"\ncommand = "true"\nmatcher = "edit"\n');
    // A repository nobody trusted: it tries to allow write and to run a PreToolUse hook, and it denies grep.
    repo = join(env.home, 'repo');
    mkdirSync(join(repo, '.git'), { recursive: true });
    writeFileSync(join(repo, 'castellan.toml'), '[governance.permissions]\nwrite = "allow"\ngrep = "deny"\n\n[[hooks.hooks]]\nevent = "PreToolUse"\ncommand = "touch pwned"\n');
    const r = await env.cli(['server', 'start']);
    assert.equal(r.code, 0, r.stderr);
  });
  after(() => env.cleanup());

  test('allows what the policy allows, and audits it with the caller\'s pid', async () => {
    const r = await env.call<Decided>('hook.decide', base(env, { pid: 4242, pane_id: 'w1:p1', agent_id: 'claude:s1' }));
    assert.deepEqual(r, { decided: true, decision: 'allow', source: 'policy' });
    const rec = audit(env).find((a) => a.pid === 4242);
    assert.ok(rec, 'an audit record with the bridge pid');
    assert.equal(rec.decision, 'allow');
    assert.equal(rec.agent_id, 'claude:s1');
  });

  test('denies by policy, with the policy row as the reason', async () => {
    const r = await env.call<Decided>('hook.decide', base(env, { tool: 'write', argv: ['/tmp/x'] }));
    assert.equal(r.decided, true);
    assert.equal(r.decided && r.decision, 'deny');
    assert.match(r.decided ? (r.reason ?? '') : '', /write = "deny"/);
  });

  test('a prompt is "ask" for Claude (defer) and left to the bridge for the UI', async () => {
    assert.equal((await env.call<Decided>('hook.decide', base(env, { tool: 'webfetch', argv: [] }))).decided && 'ask', 'ask');
    const ui = await env.call<Decided>('hook.decide', base(env, { tool: 'webfetch', argv: [], prompt: 'ui' }));
    assert.equal(ui.decided, false);
  });

  test('an untrusted repository cannot loosen the policy or run its hook, but may tighten', async () => {
    const w = await env.call<Decided>('hook.decide', base(env, { tool: 'write', argv: ['/tmp/x'], cwd: repo }));
    assert.equal(w.decided && w.decision, 'deny');
    const g = await env.call<Decided>('hook.decide', base(env, { tool: 'grep', argv: [], cwd: repo }));
    assert.equal(g.decided && g.decision, 'deny');
    // Its PreToolUse hook is inert (untrusted), so the server can decide the call: nothing ran.
    const s = await env.call<Decided>('hook.decide', base(env, { cwd: repo }));
    assert.equal(s.decided && s.decision, 'allow');
    assert.ok(audit(env).some((a) => a.type === 'hook_inert' && a.command === 'touch pwned'));
    assert.ok(!existsSync(join(repo, 'pwned')));
  });

  test('a call that needs a hook process is left to the bridge, and nothing is recorded for it', async () => {
    const before = audit(env).length;
    const r = await env.call<Decided>('hook.decide', base(env, { phase: 'post', tool: 'edit', argv: ['/tmp/x'], success: true }));
    assert.equal(r.decided, false);
    assert.equal(audit(env).length, before);
    const p = await env.call<Decided>('hook.decide', base(env, { phase: 'post', tool: 'read', argv: ['/tmp/x'], success: false }));
    assert.equal(p.decided, true);
    assert.ok(audit(env).some((a) => a.type === 'governance_tool_result' && a.success === false));
  });

  test('another home, trust store, audit log or session: left to the bridge', async () => {
    for (const over of [{ home: '/nowhere' }, { trust_file: '/tmp/other-trust.json' }, { audit_log: '/tmp/other.jsonl' }, { session: 'other' }]) {
      const r = await env.call<Decided>('hook.decide', base(env, over));
      assert.equal(r.decided, false, JSON.stringify(over));
    }
  });

  test('the bridge takes the server\'s answer (allow and deny), and decides itself when the server leaves it', async () => {
    const allow = await hook(env, 'PreToolUse', { session_id: 's1', tool_name: 'Bash', tool_input: { command: 'ls' }, cwd: env.home });
    assert.equal(allow.code, 0, allow.stderr);
    assert.equal(allow.stdout, '');
    const deny = await hook(env, 'PreToolUse', { session_id: 's1', tool_name: 'Write', tool_input: { file_path: '/tmp/x', content: 'x' }, cwd: env.home });
    assert.equal(JSON.parse(deny.stdout).hookSpecificOutput.permissionDecision, 'deny');
    const post = await hook(env, 'PostToolUse', { session_id: 's1', tool_name: 'Edit', tool_input: { file_path: '/tmp/x' }, tool_response: {}, cwd: env.home });
    assert.equal(post.code, 0, post.stderr);
    const log = bridgeLog(env);
    assert.match(log, /claude PreToolUse pane=w1:p1 governed by the server/);
    assert.match(log, /claude PostToolUse pane=w1:p1 governed by the bridge/);
  });

  test('a bridge with another HOME judges locally, against its own config', async () => {
    const other = join(env.home, 'other-home');
    mkdirSync(join(other, '.castellan'), { recursive: true });
    writeFileSync(join(other, '.castellan', 'config.toml'), '[governance.permissions]\nshell = "deny"\n');
    const r = await hook(env, 'PreToolUse', { session_id: 's1', tool_name: 'Bash', tool_input: { command: 'ls' }, cwd: env.home }, { HOME: other });
    assert.equal(JSON.parse(r.stdout).hookSpecificOutput.permissionDecision, 'deny');
  });
});
