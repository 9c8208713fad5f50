// Copilot CLI and Qwen Code through the real `castellan hook` bridge and the installed line (the hook door), with payloads shaped
// as agent-lab recorded them: `shell = "deny"` stops the call in each agent's own protocol with castellan's reason, an
// allowed call gets no answer (the agent's own flow goes on), each call is audited once, and hostile payloads are denied.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { installedHookCommand } from '../../src/integrations/command-line.js';
import { HOOK_PAYLOAD_MAX_BYTES } from '../../src/integrations/hook-input.js';
import { BIN, makeTempEnv, type TempEnv } from '../support/temp-env.js';
import { waitFor } from '../support/wait-for.js';
import { runLine } from '../support/hook-line.js';
import { auditRecords, runHook } from '../robustness/bridge-support.js';

/** Copilot CLI 1.0.102 preToolUse (payloads/copilot-hooks.jsonl): no hook_event_name, camelCase fields. */
const copilotPre = (cwd: string, toolName: string, toolArgs: Record<string, unknown>) => ({ sessionId: 'c0ffee', timestamp: 1796452522332, cwd, toolName, toolArgs });
/** Qwen Code 0.24.4 PermissionRequest / PreToolUse (payloads/qwen-hooks.jsonl). */
const qwenCall = (event: 'PermissionRequest' | 'PreToolUse', cwd: string, tool_name: string, tool_input: Record<string, unknown>) => ({
  session_id: 'q1',
  transcript_path: join(cwd, 'q1.jsonl'),
  cwd,
  hook_event_name: event,
  timestamp: '2026-12-05T06:45:04.109Z',
  permission_mode: 'default',
  tool_name,
  tool_input,
  ...(event === 'PreToolUse' ? { tool_use_id: 'toolu_1', tool_call_id: 'call_1' } : { prompt_id: 'q1########2' }),
});

describe('Copilot CLI and Qwen Code: governance through their hooks', { concurrency: false }, () => {
  let env: TempEnv;
  let hookEnv: Record<string, string>;
  before(async () => {
    env = makeTempEnv();
    mkdirSync(join(env.home, '.castellan'), { recursive: true });
    writeFileSync(join(env.home, '.castellan', 'config.toml'), '[governance.permissions]\nshell = "deny"\n');
    assert.equal((await env.cli(['server', 'start', '--cols', '100', '--rows', '30'])).code, 0, env.logTail());
    await waitFor(() => existsSync(join(`${env.socket}.door`, 'pid')), { timeoutMs: 10_000, message: 'the door to open' });
    hookEnv = { ...env.env, CASTELLAN_ENV: '1', CASTELLAN_SOCKET: env.socket, CASTELLAN_PANE_ID: 'w1:p1' };
  });
  after(() => env.cleanup());

  const bridge = (agent: string, event: string, payload: unknown) => runHook({ agent, event, feed: { kind: 'whole', data: JSON.stringify(payload) }, env: hookEnv, cwd: env.home });
  /** The line `castellan integrations install` writes (through door.sh), run by sh as the agent runs it. */
  const installed = (agent: 'copilot' | 'qwen', event: string, payload: unknown) => runLine(installedHookCommand([process.execPath, BIN], agent, event), hookEnv, JSON.stringify(payload), { cwd: env.home });
  const audited = (marker: string) => auditRecords(env.stateDir).filter((r) => r.type === 'governance_decision' && JSON.stringify(r).includes(marker));
  const badge = async () => (await env.call<{ agent?: { agent?: string; state: string; message?: string } }>('pane.get', { pane_id: 'w1:p1' })).agent;

  test('Copilot preToolUse: a denied bash call gets {permissionDecision: deny} with castellan\'s reason; through the door too; audited once each', async () => {
    for (const [via, run] of [['bridge', bridge], ['door', installed]] as const) {
      const marker = `touch copilot-${via}`;
      const r = await run('copilot', 'preToolUse', copilotPre(env.home, 'bash', { command: marker }));
      assert.equal(r.code, 0, r.stderr);
      const a = JSON.parse(r.stdout) as Record<string, string>;
      assert.deepEqual(Object.keys(a), ['permissionDecision', 'permissionDecisionReason']);
      assert.equal(a.permissionDecision, 'deny');
      assert.match(a.permissionDecisionReason, /^castellan: .*shell/);
      assert.equal(audited(marker).length, 1, `${via}: one audit record`);
      assert.equal(audited(marker)[0]!.decision, 'deny');
    }
    assert.equal((await badge())?.state, 'working');
  });

  test('Copilot: an allowed tool (view) gets no answer and runs; audited once; the agent is copilot:<sessionId>', async () => {
    const file = join(env.home, 'copilot-view.txt');
    const r = await installed('copilot', 'preToolUse', copilotPre(env.home, 'view', { path: file }));
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '');
    const recs = audited(file);
    assert.equal(recs.length, 1);
    assert.equal(recs[0]!.decision, 'allow');
    assert.equal(recs[0]!.agent_id, 'copilot:c0ffee');
  });

  test('Copilot state events move the badge (recorded shapes)', async () => {
    const ev = async (event: string, payload: Record<string, unknown>) => assert.equal((await installed('copilot', event, { sessionId: 'c0ffee', timestamp: 1, cwd: env.home, ...payload })).code, 0);
    await ev('permissionRequest', { hookName: 'permissionRequest', toolName: 'bash', toolInput: { command: 'touch x' }, permissionSuggestions: [] });
    await waitFor(async () => ((await badge())?.state === 'blocked' ? true : undefined), { timeoutMs: 5000, message: 'blocked' });
    assert.equal((await badge())?.message, 'bash: touch x');
    await ev('agentStop', { transcriptPath: '/x', stopReason: 'end_turn', stop_hook_active: false });
    await waitFor(async () => ((await badge())?.state === 'done' ? true : undefined), { timeoutMs: 5000, message: 'done' });
  });

  test('Qwen PermissionRequest: a denied shell call gets decision.behavior deny (before anyone is asked); through the door too', async () => {
    for (const [via, run] of [['bridge', bridge], ['door', installed]] as const) {
      const marker = `touch qwen-${via}`;
      const r = await run('qwen', 'PermissionRequest', qwenCall('PermissionRequest', env.home, 'run_shell_command', { command: marker }));
      assert.equal(r.code, 0, r.stderr);
      const a = JSON.parse(r.stdout) as { hookSpecificOutput: { hookEventName: string; decision: { behavior: string; message: string } } };
      assert.equal(a.hookSpecificOutput.hookEventName, 'PermissionRequest');
      assert.equal(a.hookSpecificOutput.decision.behavior, 'deny');
      assert.match(a.hookSpecificOutput.decision.message, /^castellan: .*shell/);
      assert.equal(audited(marker).length, 1, `${via}: one audit record`);
    }
  });

  test('Qwen PreToolUse (a call no dialog asked about): a deny is exit 2 with castellan\'s reason on stderr, through the door too', async () => {
    assert.match(installedHookCommand([process.execPath, BIN], 'qwen', 'PreToolUse'), /door\.sh/);
    assert.match(installedHookCommand([process.execPath, BIN], 'qwen', 'PermissionRequest'), /door\.sh/);
    for (const [via, run] of [['bridge', bridge], ['installed line', installed]] as const) {
      const marker = `touch qwen-pre-${via}`;
      const r = await run('qwen', 'PreToolUse', qwenCall('PreToolUse', env.home, 'run_shell_command', { command: marker }));
      assert.equal(r.code, 2, `${via}: exit 2`);
      assert.equal(r.stdout, '');
      // The installed line goes through door.sh, which passes the answer's stderr on: the reason arrives.
      assert.match(r.stderr, /^castellan: .*shell/, via);
      assert.equal(audited(marker).length, 1);
    }
  });

  test('Qwen: an allowed call is judged at PermissionRequest and handed on: PreToolUse for that call answers nothing and audits nothing more', async () => {
    const file = join(env.home, 'qwen-read.txt');
    const p1 = await installed('qwen', 'PermissionRequest', qwenCall('PermissionRequest', env.home, 'read_file', { file_path: file }));
    assert.equal(p1.code, 0, p1.stderr);
    assert.equal(p1.stdout, '', 'no answer: Qwen\'s own dialog asks the user');
    const p2 = await installed('qwen', 'PreToolUse', qwenCall('PreToolUse', env.home, 'read_file', { file_path: file }));
    assert.equal(p2.code, 0, p2.stderr);
    assert.equal(p2.stdout, '');
    assert.equal(audited(file).length, 1, 'judged once');
    // The hand-off is taken once: the same call again (no dialog this time) is judged again.
    await installed('qwen', 'PreToolUse', qwenCall('PreToolUse', env.home, 'read_file', { file_path: file }));
    assert.equal(audited(file).length, 2);
    // Another call's allow does not cover a denied one.
    await installed('qwen', 'PermissionRequest', qwenCall('PermissionRequest', env.home, 'read_file', { file_path: join(env.home, 'other') }));
    const denied = await installed('qwen', 'PreToolUse', qwenCall('PreToolUse', env.home, 'run_shell_command', { command: 'touch qwen-sneak' }));
    assert.equal(denied.code, 2);
  });

  test('Qwen state events: idle_prompt after Stop keeps done; after Esc at the dialog it says idle', async () => {
    const ev = async (event: string, payload: Record<string, unknown>) =>
      assert.equal((await installed('qwen', event, { session_id: 'q1', cwd: env.home, hook_event_name: event, permission_mode: 'default', ...payload })).code, 0);
    const state = (want: string) => waitFor(async () => ((await badge())?.state === want ? true : undefined), { timeoutMs: 5000, message: want });
    await ev('Stop', { last_assistant_message: 'ok', stop_hook_active: false });
    await state('done');
    await ev('Notification', { notification_type: 'idle_prompt', message: 'Qwen Code is waiting for your input', title: 'Waiting for input' });
    await ev('Notification', { notification_type: 'permission_prompt', message: 'Qwen Code needs your permission to use run_shell_command', title: 'Permission' });
    await state('blocked');
    await ev('Notification', { notification_type: 'idle_prompt', message: 'Qwen Code is waiting for your input', title: 'Waiting for input' });
    await state('idle');
  });

  test('hostile payloads to every gate are denied in the agent\'s protocol, audited, and never crash the bridge', async () => {
    const gates: Array<['copilot' | 'qwen', string, (p: string) => boolean, (r: { code: number | null; stdout: string; stderr: string }) => boolean]> = [
      ['copilot', 'preToolUse', () => true, (r) => r.code === 0 && JSON.parse(r.stdout).permissionDecision === 'deny'],
      ['qwen', 'PermissionRequest', () => true, (r) => r.code === 0 && JSON.parse(r.stdout).hookSpecificOutput.decision.behavior === 'deny'],
      ['qwen', 'PreToolUse', () => true, (r) => r.code === 2 && /castellan: /.test(r.stderr)],
    ];
    const hostile: Array<[string, Buffer | string]> = [
      ['malformed', '{"toolName": "bash", "toolArgs": {"command": "ls"'],
      ['binary', Buffer.from([0xff, 0xfe, 0x00, 0x01, 0x7b, 0x22])],
      ['an array', '[1,2,3]'],
      ['no tool name', JSON.stringify({ sessionId: 's', tool_input: { command: 'ls' }, toolArgs: { command: 'ls' } })],
      ['a tool name that is not a string', JSON.stringify({ sessionId: 's', toolName: ['bash'], tool_name: { x: 1 }, toolArgs: {}, tool_input: {} })],
      ['a forged tool name (control characters)', JSON.stringify({ session_id: 's', toolName: 'view\u0000bash', tool_name: 'read_file\nrun_shell_command', toolArgs: { command: 'ls' }, tool_input: { command: 'ls' } })],
      ['a tool name 300 characters long', JSON.stringify({ toolName: 'x'.repeat(300), tool_name: 'x'.repeat(300), toolArgs: {}, tool_input: {} })],
      ['too deep', '{"toolName":"view","tool_name":"read_file","toolArgs":' + '{"a":'.repeat(100) + '1' + '}'.repeat(100) + ',"tool_input":{}}'],
    ];
    for (const [agent, event, , ok] of gates) {
      for (const [what, data] of hostile) {
        const r = await runHook({ agent, event, feed: { kind: 'whole', data }, env: hookEnv, cwd: env.home });
        assert.ok(!r.hung, `${agent} ${event} ${what}: exited`);
        assert.ok(ok(r), `${agent} ${event} ${what}: denied (${r.code} ${r.stdout} ${r.stderr})`);
      }
    }
    // Too big: one byte over the cap, denied without judging what fitted.
    const big = JSON.stringify({ toolName: 'view', toolArgs: { path: 'x'.repeat(HOOK_PAYLOAD_MAX_BYTES) } });
    const r = await runHook({ agent: 'copilot', event: 'preToolUse', feed: { kind: 'whole', data: big }, env: hookEnv, cwd: env.home });
    assert.equal(JSON.parse(r.stdout).permissionDecision, 'deny');
    assert.match(JSON.parse(r.stdout).permissionDecisionReason, /larger than 8 MiB/);
    assert.ok(auditRecords(env.stateDir).some((x) => x.source === 'payload' && x.hook_event === 'copilot preToolUse'));
  });
});
