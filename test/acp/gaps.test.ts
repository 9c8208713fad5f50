// Issue 28, items 5, 8 and 12 through the real proxy: hostile tool kinds, a refusal a stock editor can show, one goal id per session.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { waitFor } from '../support/wait-for.js';
import { makeRig, prompt, refusalText, session } from './support.js';

const permit = (call: Record<string, unknown>) => `PERMIT ${JSON.stringify(call)}`;

test('item 5: a permission request with no kind, or an unknown kind, whose input is a command is judged as shell and denied', async () => {
  const r = await makeRig({ config: '[governance.permissions]\nshell = "deny"\n' });
  try {
    const sid = await session(r);
    await prompt(r, sid, permit({ toolCallId: 'k1', title: 'cleanup', rawInput: { command: 'rm -rf /x' } }));
    await prompt(r, sid, permit({ toolCallId: 'k2', title: 'cleanup', kind: 'weird', rawInput: { command: 'rm -rf /x' } }));
    // A known kind does not lower the stakes either: the command is what runs.
    await prompt(r, sid, permit({ toolCallId: 'k3', title: 'look', kind: 'read', rawInput: { command: ['rm', '-rf', '/x'] } }));
    assert.equal(r.asked.length, 0, 'the editor was never asked: castellan denied all three');
    for (const id of ['k1', 'k2', 'k3']) assert.match(refusalText(r, id) ?? '', /the permission policy denies shell/, id);
    const decisions = r.events.filter((e) => e.type === 'governance_decision');
    assert.deepEqual(decisions.map((e) => [e.decision, e.tool, (e.argv as string[]).join(' ')]), Array(3).fill(['deny', 'shell', '/bin/sh -c rm -rf /x']));
  } finally {
    await r.close();
  }
});

test('item 5: an unknown kind with no command is judged as the strictest gated tool (deny by default); with nothing gated it passes', async () => {
  const r = await makeRig({ config: '[governance.permissions]\nedit = "deny"\n' });
  try {
    const sid = await session(r);
    await prompt(r, sid, permit({ toolCallId: 'u1', title: 'do a thing', kind: 'weird\u0007', rawInput: { file_path: '/etc/passwd' } }));
    assert.equal(r.asked.length, 0);
    assert.match(refusalText(r, 'u1') ?? '', /a tool call of unknown kind "weird" is judged as the strictest tool the policy gates \(edit\): the permission policy denies edit/);
    // An ACP kind the policy allows is not affected.
    await prompt(r, sid, permit({ toolCallId: 'u2', title: 'read', kind: 'read', rawInput: { path: '/tmp/a' } }));
    assert.equal(r.asked.length, 1);
  } finally {
    await r.close();
  }
  const free = await makeRig();
  try {
    const sid = await session(free);
    await prompt(free, sid, permit({ toolCallId: 'u3', title: 'do a thing', rawInput: {} }));
    assert.equal(free.asked.length, 1, 'nothing gated: the editor decides');
  } finally {
    await free.close();
  }
});

test('item 8: a call the agent asks about before announcing it (as Gemini does) is announced to the editor before its failed update, with the reason', async () => {
  const r = await makeRig({ config: '[governance.permissions]\nshell = "deny"\n' });
  try {
    const sid = await session(r);
    await prompt(r, sid, permit({ toolCallId: 'g1', title: 'touch x', kind: 'execute', rawInput: { command: 'touch x' } }));
    const view = r.updates.map((u) => u.update as { sessionUpdate: string; toolCallId?: string; status?: string; title?: string; kind?: string }).filter((u) => u.toolCallId === 'g1');
    assert.deepEqual(view.slice(0, 2).map((u) => [u.sessionUpdate, u.status]), [['tool_call', 'pending'], ['tool_call_update', 'failed']]);
    assert.deepEqual([view[0].title, view[0].kind], ['touch x', 'execute']);
    assert.match(refusalText(r, 'g1') ?? '', /^castellan denied touch x: the permission policy denies shell/);
    // The agent's own failed update after the rejection keeps castellan's reason first (it replaces the content in the editor).
    const last = view.at(-1) as { status?: string; content?: Array<{ content?: { text?: string } }> };
    assert.equal(last.status, 'failed');
    assert.match(last.content?.[0]?.content?.text ?? '', /castellan denied touch x/);
  } finally {
    await r.close();
  }
});

test('item 12: PreToolUse and PostToolUse payloads carry the same goal_id as SessionStart: acp:<sessionId>', async () => {
  const hook = (event: string) => `[[hooks.hooks]]\nevent = "${event}"\ncommand = "cat >> $HOME/${event}.json"\n`;
  const r = await makeRig({ config: hook('SessionStart') + hook('PreToolUse') + hook('PostToolUse') });
  try {
    const sid = await session(r);
    await prompt(r, sid, `TOOL ${JSON.stringify({ toolCallId: 'p1', title: 'ls', kind: 'execute', rawInput: { command: 'ls' } })}`);
    const goal = (event: string) => (JSON.parse(readFileSync(`${r.home}/${event}.json`, 'utf8').trim().split('\n')[0]) as { goal_id: unknown }).goal_id;
    await waitFor(() => readFileSync(`${r.home}/PostToolUse.json`, 'utf8'), { timeoutMs: 15_000, message: 'PostToolUse ran' });
    assert.deepEqual(['SessionStart', 'PreToolUse', 'PostToolUse'].map(goal), Array(3).fill(`acp:${sid}`));
    const decision = r.events.find((e) => e.type === 'governance_decision');
    assert.equal(decision?.goal_id, `acp:${sid}`);
  } finally {
    await r.close();
  }
});
