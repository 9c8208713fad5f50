// The hook bridge answering tool calls with castellan's governance, in each agent's own protocol.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startInProcess, type InProcessServer } from '../api/in-process.js';
import { toolCallOf } from '../../src/integrations/govern.js';

const run = promisify(execFile);
const BIN = new URL('../../bin/castellan.js', import.meta.url).pathname;

async function hook(srv: InProcessServer, agent: string, event: string, payload: unknown, pane = 'w1:p1') {
  const env = { PATH: process.env.PATH, HOME: srv.home, CASTELLAN_ENV: '1', CASTELLAN_SOCKET: srv.paths.socket, CASTELLAN_PANE_ID: pane };
  try {
    const r = await run(process.execPath, [BIN, 'hook', agent, event, JSON.stringify(payload)], { env, cwd: srv.home, timeout: 20_000 });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, stdout: x.stdout, stderr: x.stderr };
  }
}

describe('governance through agents\' tool hooks', () => {
  let srv: InProcessServer;
  before(async () => {
    srv = await startInProcess();
    // The user layer needs no trust: shell commands containing "forbidden" are denied by a PreToolUse hook,
    // and the Write tool is denied by policy.
    mkdirSync(join(srv.home, '.castellan'), { recursive: true });
    writeFileSync(join(srv.home, 'deny.sh'), '#!/bin/sh\nif grep -q forbidden; then echo "no forbidden things" >&2; exit 1; fi\n', { mode: 0o755 });
    writeFileSync(
      join(srv.home, '.castellan', 'config.toml'),
      `[[hooks.hooks]]\nevent = "PreToolUse"\ncommand = "${join(srv.home, 'deny.sh')}"\nmatcher = "shell"\n\n[governance.permissions]\nwrite = "deny"\n`,
    );
  });
  after(() => srv.stop());

  const bash = (command: string) => ({ session_id: 's1', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command, description: 'x' }, cwd: srv.home });

  test('tool names map onto castellan tools', () => {
    assert.deepEqual(toolCallOf('claude', bash('touch x')).argv, ['/bin/sh', '-c', 'touch x']);
    assert.equal(toolCallOf('claude', bash('ls')).tool, 'shell');
    assert.equal(toolCallOf('gemini', { tool_name: 'run_shell_command', tool_input: { command: 'ls' } }).tool, 'shell');
    assert.equal(toolCallOf('pi', { toolName: 'bash', input: { command: 'ls' } }).tool, 'shell');
    assert.deepEqual(toolCallOf('claude', { tool_name: 'Write', tool_input: { file_path: '/tmp/a' } }), { tool: 'write', argv: ['/tmp/a'], toolInput: { file_path: '/tmp/a' }, rawName: 'Write' });
  });

  test('Claude: an allowed Bash call gets no output (Claude\'s own permission flow stays in charge)', async () => {
    const r = await hook(srv, 'claude', 'PreToolUse', bash('touch ok'));
    assert.equal(r.code, 0);
    assert.equal(r.stdout, '');
  });

  test('Claude: a hook denial answers permissionDecision deny with the hook\'s reason', async () => {
    const r = await hook(srv, 'claude', 'PreToolUse', bash('touch forbidden-file'));
    assert.equal(r.code, 0);
    const out = JSON.parse(r.stdout);
    assert.equal(out.hookSpecificOutput.hookEventName, 'PreToolUse');
    assert.equal(out.hookSpecificOutput.permissionDecision, 'deny');
    assert.match(out.hookSpecificOutput.permissionDecisionReason, /no forbidden things/);
  });

  test('Claude: a policy denial of another tool (Write)', async () => {
    const r = await hook(srv, 'claude', 'PreToolUse', { session_id: 's1', tool_name: 'Write', tool_input: { file_path: join(srv.home, 'f'), content: 'x' }, cwd: srv.home });
    assert.equal(JSON.parse(r.stdout).hookSpecificOutput.permissionDecision, 'deny');
  });

  test('Gemini and Codex answer in their own formats', async () => {
    const g = await hook(srv, 'gemini', 'BeforeTool', { session_id: 's2', tool_name: 'run_shell_command', tool_input: { command: 'rm forbidden' }, cwd: srv.home });
    assert.deepEqual(Object.keys(JSON.parse(g.stdout)).sort(), ['decision', 'reason']);
    assert.equal(JSON.parse(g.stdout).decision, 'deny');
    const c = await hook(srv, 'codex', 'PreToolUse', { session_id: 's3', tool_name: 'Bash', tool_input: { command: 'echo forbidden' }, cwd: srv.home });
    assert.equal(JSON.parse(c.stdout).hookSpecificOutput.permissionDecision, 'deny');
  });

  test('the denial reaches socket subscribers as events and the pane state is still reported', async () => {
    const sub = await srv.connect();
    const seen: string[] = [];
    sub.onMessage((m) => m.event && seen.push((m.event as { type: string }).type));
    await sub.request('events.subscribe', { types: ['hook_run', 'governance_decision', 'pane_agent_status_changed'] });
    await hook(srv, 'claude', 'PreToolUse', bash('cat forbidden'));
    assert.ok(seen.includes('hook_run'), `saw ${seen}`);
    assert.ok(seen.includes('governance_decision'), `saw ${seen}`);
    const pane = await sub.request<{ agent: { state: string } }>('pane.get', { pane_id: 'w1:p1' });
    assert.equal(pane.agent.state, 'working');
  });

  test('outside castellan the bridge governs nothing and prints nothing', async () => {
    const r = await run(process.execPath, [BIN, 'hook', 'claude', 'PreToolUse', JSON.stringify(bash('touch forbidden'))], { env: { PATH: process.env.PATH, HOME: srv.home } });
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, '');
  });
});
