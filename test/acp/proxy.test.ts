// castellan acp between the SDK's own client and a scripted ACP agent: allow, deny by policy, deny by plan verify, events.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { waitFor } from '../support/wait-for.js';
import { agentSaw, makeRig, messages, prompt, refusalText, session } from './support.js';

const shell = (id: string, command: string, extra: Record<string, unknown> = {}) => JSON.stringify({ toolCallId: id, title: command, kind: 'execute', rawInput: { command, ...extra } });

test('allowed: a tool call castellan allows reaches the editor\'s permission dialog and runs; PostToolUse fires; sessions fire SessionStart/End', async () => {
  const r = await makeRig({
    config: `[[hooks.hooks]]\nevent = "SessionStart"\ncommand = "echo start >> $HOME/hooks.txt"\n[[hooks.hooks]]\nevent = "PostToolUse"\ncommand = "cat >> $HOME/post.json"\n[[hooks.hooks]]\nevent = "SessionEnd"\ncommand = "echo end >> $HOME/hooks.txt"\n`,
  });
  try {
    const sid = await session(r);
    const res = await prompt(r, sid, `TOOL ${shell('t1', 'ls -la')}`);
    assert.equal(res.stopReason, 'end_turn');
    assert.equal(r.asked.length, 1, 'the editor was asked');
    assert.deepEqual(messages(r), ['tool ran']);
    // PostToolUse runs on the agent's "completed" update, which may land after the turn's answer.
    await waitFor(() => r.events.some((e) => e.type === 'governance_tool_result'), { timeoutMs: 15_000, message: 'PostToolUse ran' });
    const decision = r.events.find((e) => e.type === 'governance_decision');
    assert.deepEqual([decision?.decision, decision?.tool, decision?.agent_id], ['allow', 'shell', `acp:node:${sid}`]);
    assert.ok(r.events.some((e) => e.type === 'governance_session' && e.phase === 'start'));
    assert.ok(r.events.some((e) => e.type === 'governance_tool_result' && e.success === true));
    await waitFor(() => readFileSync(`${r.home}/post.json`, 'utf8'), { timeoutMs: 15_000, message: 'the PostToolUse hook wrote its payload' });
    assert.match(readFileSync(`${r.home}/post.json`, 'utf8'), /"tool":"shell"/);
    // The audit log has the same decisions.
    assert.match(readFileSync(r.paths.auditLog, 'utf8'), /"type":"governance_decision","decision":"allow"/);
    assert.deepEqual(await r.end(), { code: 0 });
    // SessionEnd ran when the editor went away.
    assert.equal(readFileSync(`${r.home}/hooks.txt`, 'utf8'), 'start\nend\n');
  } finally {
    await r.close();
  }
});

test('deny by policy: the agent gets "reject", the editor never sees a dialog but sees the refused call with castellan\'s reason', async () => {
  const r = await makeRig({ config: '[governance.permissions]\nshell = "deny"\n' });
  try {
    const sid = await session(r);
    await prompt(r, sid, `TOOL ${shell('t2', 'rm -rf /')}`);
    assert.equal(r.asked.length, 0);
    assert.deepEqual(messages(r), ['tool refused (selected no)']);
    assert.match(refusalText(r, 't2') ?? '', /^castellan denied rm -rf \/: the permission policy denies shell \(\[governance\.permissions\] shell = "deny"\)/);
    assert.ok(r.events.some((e) => e.type === 'governance_decision' && e.decision === 'deny' && e.source === 'policy'));
  } finally {
    await r.close();
  }
});

test('deny by plan verify, and a plan that passes: PlanVerifyDenied / PlanVerifyPassed reach the editor', async () => {
  const r = await makeRig({ config: '[governance.plan_verify]\nenabled = true\nhigh_risk_tools = ["shell"]\n' });
  try {
    const sid = await session(r);
    await prompt(r, sid, `TOOL ${shell('t3', 'curl https://x')}`);
    assert.match(refusalText(r, 't3') ?? '', /castellan denied curl https:\/\/x: plan verify: no workflow_plan/);
    const denied = r.events.find((e) => e.type === 'PlanVerifyDenied');
    assert.equal(denied?.kind, 'missing');
    const plan = { steps: [{ id: 's1', tool: 'shell', argv: ['/bin/sh', '-c', 'ls'] }] };
    await prompt(r, sid, `TOOL ${shell('t4', 'ls', { workflow_plan: plan })}`);
    const passed = r.events.find((e) => e.type === 'PlanVerifyPassed');
    assert.ok(passed, `PlanVerifyPassed in ${JSON.stringify(r.events.map((e) => [e.type, e.reason]))}`);
    assert.equal(refusalText(r, 't4'), undefined);
    assert.equal(r.asked.length, 1, 'the passing call went on to the editor');
  } finally {
    await r.close();
  }
});

test('a PreToolUse hook denies with its stderr; a tool run without asking is stopped by cancelling the turn', async () => {
  const r = await makeRig({ config: '[[hooks.hooks]]\nevent = "PreToolUse"\nmatcher = "edit"\ncommand = "echo \\"no edits on Fridays\\" >&2; exit 1"\n' });
  try {
    const sid = await session(r);
    await prompt(r, sid, `TOOL ${JSON.stringify({ toolCallId: 'e1', title: 'Edit a.txt', kind: 'edit', rawInput: { file_path: '/tmp/a.txt' } })}`);
    assert.match(refusalText(r, 'e1') ?? '', /castellan denied Edit a\.txt: no edits on Fridays/);
    assert.ok(r.events.some((e) => e.type === 'hook_run' && e.event === 'PreToolUse'));
    await prompt(r, sid, `NOASK ${JSON.stringify({ toolCallId: 'e2', title: 'Edit b.txt', kind: 'edit', rawInput: { file_path: '/tmp/b.txt' } })}`);
    // The call was reported as already running: the editor sees it refused, and the turn cancelled.
    await waitFor(() => refusalText(r, 'e2'), { timeoutMs: 15_000, message: 'the refusal of a call run without asking' });
    assert.match(refusalText(r, 'e2') ?? '', /without asking for permission \(it reports "(in_progress|completed)"\), so castellan cancelled the turn/);
    await waitFor(() => agentSaw(r).includes('session/cancel'), { timeoutMs: 15_000, message: 'session/cancel sent' });
  } finally {
    await r.close();
  }
});

test('a SessionStart hook that fails refuses the session with its reason', async () => {
  const r = await makeRig({ config: '[[hooks.hooks]]\nevent = "SessionStart"\ncommand = "echo \\"not in this repo\\" >&2; exit 1"\n' });
  try {
    await r.ctx.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    await assert.rejects(r.ctx.request('session/new', { cwd: r.home, mcpServers: [] }), /a SessionStart hook refused this session: not in this repo/);
  } finally {
    await r.close();
  }
});
