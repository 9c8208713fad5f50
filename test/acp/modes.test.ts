// A deny holds whatever mode the editor, the agent or its flags choose (issue 28, item 1): through the real proxy, with a
// scripted agent that, in yolo mode, runs `touch <file>` without asking, so "the command did not run" is a file check.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor } from '../support/wait-for.js';
import { FAKE_AGENT, agentSaw, makeRig, messages, prompt, session, type Rig } from './support.js';

const DENY_SHELL = '[governance.permissions]\nshell = "deny"\n';
const touch = (id: string, file: string) => `TOOL ${JSON.stringify({ toolCallId: id, title: `touch ${file}`, kind: 'execute', rawInput: { command: `touch ${file}` } })}`;
const audit = (r: Rig) => (existsSync(r.paths.auditLog) ? readFileSync(r.paths.auditLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>) : []);
/** What the editor was told about one call, in order. */
const seen = (r: Rig, id: string) =>
  r.updates.map((u) => u.update as { sessionUpdate: string; toolCallId?: string; status?: string; content?: Array<{ content?: { text?: string } }> }).filter((u) => u.toolCallId === id);
const modeUpdates = (r: Rig) => r.updates.map((u) => u.update as { sessionUpdate: string; currentModeId?: string }).filter((u) => u.sessionUpdate === 'current_mode_update').map((u) => u.currentModeId);

test('set_mode yolo under shell = "deny": refused with the policy\'s reason (error + message + mode back); the agent stays asking and nothing runs', async () => {
  const r = await makeRig({ config: DENY_SHELL });
  try {
    const sid = await session(r);
    await assert.rejects(r.ctx.request('session/set_mode', { sessionId: sid, modeId: 'yolo' }), (e: Error & { code?: number }) => {
      assert.equal(e.code, -32001);
      assert.match(e.message, /castellan refused mode "yolo": it runs tools without asking for permission, and castellan's policy gates shell \(the permission policy denies shell \(\[governance\.permissions\] shell = "deny"\)\)/);
      return true;
    });
    assert.ok(!agentSaw(r).includes('session/set_mode'), 'the mode change never reached the agent');
    assert.ok(messages(r).some((m) => m.includes('castellan refused mode "yolo"')), 'a stock editor shows the reason as an agent message');
    assert.deepEqual(modeUpdates(r), ['default'], 'the editor\'s mode picker is told the mode in force');
    assert.ok(audit(r).some((e) => e.type === 'acp_mode_refused' && e.mode === 'yolo'));
    // The agent still asks, so castellan's deny answers it; the command does not run.
    await prompt(r, sid, touch('y1', 'x'));
    assert.equal(existsSync(join(r.home, 'x')), false, 'the denied command did not run');
    assert.equal(r.asked.length, 0);
    // A mode that only skips asking for edits is fine while only shell is gated.
    await r.ctx.request('session/set_mode', { sessionId: sid, modeId: 'autoEdit' });
    assert.ok(agentSaw(r).includes('"modeId":"autoEdit"'));
  } finally {
    await r.close();
  }
});

test('set_mode to a mode castellan does not know is refused while the policy gates a tool (fails closed); with no gate it is relayed', async () => {
  const r = await makeRig({ config: '[governance.permissions]\nedit = "prompt"\n' });
  try {
    const sid = await session(r);
    await assert.rejects(r.ctx.request('session/set_mode', { sessionId: sid, modeId: 'turbo\u001b[2J' }), /castellan does not know this mode.*gates edit/);
    await assert.rejects(r.ctx.request('session/set_config_option', { sessionId: sid, configId: 'mode', value: 'yolo' }), /refused mode "yolo"/);
    await assert.rejects(r.ctx.request('session/set_config_option', { sessionId: sid, configId: 'auto_approve', value: true }), /refused mode "auto_approve=true": it runs tools without asking/);
    await assert.rejects(r.ctx.request('session/set_mode', { sessionId: sid, modeId: { id: 'default' } }), /castellan does not know this mode/);
    assert.ok(!agentSaw(r).includes('set_config_option') && !agentSaw(r).includes('set_mode'), 'none of them reached the agent');
    await r.ctx.request('session/set_config_option', { sessionId: sid, configId: 'auto_approve', value: false }).catch(() => undefined);
    assert.ok(agentSaw(r).includes('"configId":"auto_approve","value":false'), 'turning auto-approve off is relayed');
    // A switch whose name says nothing about asking, and the model option, are the agent's business.
    await assert.rejects(r.ctx.request('session/set_config_option', { sessionId: sid, configId: 'model', value: 'fast' }), (e: Error) => !/castellan/.test(e.message));
  } finally {
    await r.close();
  }
  const free = await makeRig();
  try {
    const sid = await session(free);
    await free.ctx.request('session/set_mode', { sessionId: sid, modeId: 'yolo' });
    assert.ok(agentSaw(free).includes('"modeId":"yolo"'), 'nothing gated: the editor\'s choice stands');
  } finally {
    await free.close();
  }
});

test('an agent whose own settings start it in yolo: castellan switches it to an asking mode before the editor gets the session', async () => {
  const r = await makeRig({ config: DENY_SHELL, env: { FAKE_ACP_MODE: 'yolo' } });
  try {
    await r.ctx.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    const s = await r.ctx.request('session/new', { cwd: r.home, mcpServers: [] });
    assert.equal(s.modes?.currentModeId, 'default', 'the editor is told the mode really in force');
    assert.ok(agentSaw(r).includes('"modeId":"default"'));
    assert.ok(audit(r).some((e) => e.type === 'acp_mode_changed' && e.from === 'yolo' && e.to === 'default'));
    await prompt(r, s.sessionId, touch('y2', 'x'));
    assert.equal(existsSync(join(r.home, 'x')), false, 'the denied command did not run');
  } finally {
    await r.close();
  }
});

test('an agent that switches itself into yolo mid-session is switched back, and the editor is told', async () => {
  const r = await makeRig({ config: DENY_SHELL });
  try {
    const sid = await session(r);
    await prompt(r, sid, 'MODE yolo');
    await waitFor(() => agentSaw(r).includes('"modeId":"default"'), { timeoutMs: 15_000, message: 'castellan switched the agent back' });
    await waitFor(() => modeUpdates(r).at(-1) === 'default', { timeoutMs: 15_000, message: 'the editor was told', observe: () => modeUpdates(r) });
    assert.ok(messages(r).some((m) => /the agent switched itself into it, castellan switched it back to "default"/.test(m)));
    await prompt(r, sid, touch('y3', 'x'));
    assert.equal(existsSync(join(r.home, 'x')), false, 'the denied command did not run');
  } finally {
    await r.close();
  }
});

test('whatever the mode: a gated call the agent runs unasked is reported as what happened; its later "completed" never reads as a fine run', async () => {
  const r = await makeRig({ config: DENY_SHELL });
  try {
    const sid = await session(r);
    // NOASK: the agent runs it (the file appears: this agent really executes it) and reports it completed.
    await prompt(r, sid, `NOASK ${JSON.stringify({ toolCallId: 'n1', title: 'touch x', kind: 'execute', rawInput: { command: 'touch x' } })}`);
    assert.equal(existsSync(join(r.home, 'x')), true, 'precondition: this agent ran it unasked');
    const view = seen(r, 'n1');
    assert.equal(view[0]?.sessionUpdate, 'tool_call');
    assert.ok(view.length >= 2 && view.every((u) => u.status === 'failed'), `every update the editor saw says failed: ${JSON.stringify(view)}`);
    assert.match(view.at(-1)?.content?.[0]?.content?.text ?? '', /castellan denied touch x: the permission policy denies shell.*The agent ran it without asking for permission \(it reports "completed"\), so castellan cancelled the turn/);
    await waitFor(() => agentSaw(r).includes('#cancelled'), { timeoutMs: 15_000, message: 'session/cancel sent' });
    // The audit log has the deny and that the command ran anyway.
    const ran = audit(r).find((e) => e.type === 'acp_unpermitted_run');
    assert.deepEqual([ran?.decision, ran?.agent_status, ran?.asked, ran?.tool, ran?.goal_id], ['deny', 'in_progress', false, 'shell', `acp:${sid}`]);
    assert.ok(audit(r).some((e) => e.type === 'governance_tool_result' && e.success === true), 'the run is recorded as a tool result too');
  } finally {
    await r.close();
  }
});

for (const flags of [['--yolo'], ['--approval-mode=yolo'], ['--approval-mode', 'yolo'], ['--dangerously-skip-permissions']]) {
  test(`agent flags ${flags.join(' ')} under shell = "deny": refused before the agent starts; the editor's requests get the reason`, async () => {
    const r = await makeRig({ config: DENY_SHELL, command: [process.execPath, FAKE_AGENT, ...flags] });
    try {
      await assert.rejects(r.ctx.request('initialize', { protocolVersion: 1, clientCapabilities: {} }), (e: Error & { code?: number }) => {
        assert.equal(e.code, -32001);
        assert.match(e.message, new RegExp(`refused to start node: ${flags.join(' ').replace(/[-=]/g, '\\$&')} makes it run tools without asking.*shell = "deny"`));
        return true;
      });
      assert.equal(agentSaw(r), '', 'the agent never started');
      assert.equal((await r.end()).code, 2);
      assert.match(r.stderr.join(''), /refused to start/);
    } finally {
      await r.close();
    }
  });
}

test('agent flag --yolo with nothing gated: the agent starts as asked', async () => {
  const r = await makeRig({ command: [process.execPath, FAKE_AGENT, '--yolo'] });
  try {
    const sid = await session(r);
    await prompt(r, sid, touch('y4', 'ok'));
    assert.equal(existsSync(join(r.home, 'ok')), true);
  } finally {
    await r.close();
  }
});
