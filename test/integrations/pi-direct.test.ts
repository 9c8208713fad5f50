// castellan's real pi extension in a real pane, talking to a real server over its kept-open socket (hook.event): the badge
// follows with no process spawned, a burst lands in order, tool calls are governed (a deny stays a deny, through the
// server and through the spawned bridge it falls back to), and in a pane of `castellan agent start` the agent's own hooks run.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, makeTempEnv, type TempEnv } from '../support/temp-env.js';
import { readPane, waitForPane } from '../support/api.js';
import { waitFor } from '../support/wait-for.js';
import { PI_DRIVER, recorded, recorderArgv, writeExtension, type DriverStep } from '../support/pi-extension.js';
import { writeAgent } from '../agents/support.js';

const TSX = import.meta.resolve('tsx');
const bridgeLogOf = (env: TempEnv) => (existsSync(join(env.stateDir, 'hook-bridge.log')) ? readFileSync(join(env.stateDir, 'hook-bridge.log'), 'utf8') : '');
type Answers = { pid: number; answers: Array<{ event: string; answer: unknown; ms: number }> };

describe('the pi extension over the socket', () => {
  let env: TempEnv;
  let n = 0;
  before(async () => {
    env = makeTempEnv();
    mkdirSync(join(env.home, '.castellan'), { recursive: true });
    // Governance the server decides (write denied) and one that needs a hook process (a PreToolUse hook on grep).
    writeFileSync(join(env.home, 'deny.sh'), '#!/bin/sh\ncat >/dev/null; echo "no grepping here" >&2; exit 1\n', { mode: 0o755 });
    writeFileSync(join(env.home, '.castellan', 'config.toml'), `[governance.permissions]\nwrite = "deny"\n\n[[hooks.hooks]]\nevent = "PreToolUse"\ncommand = "${join(env.home, 'deny.sh')}"\nmatcher = "grep"\n`);
    const r = await env.cli(['server', 'start']);
    assert.equal(r.code, 0, r.stderr);
  });
  after(() => env.cleanup());

  /** Starts the driver in a new pane with `steps`; resolves when it has fired them all (it stays running, as pi does). */
  async function drive(steps: DriverStep[], o: { argv?: string[]; paneEnv?: Record<string, string> } = {}) {
    const id = ++n;
    const log = join(env.root, `spawned-${id}.log`);
    const ext = writeExtension(env.root, `ext-${id}`, o.argv ?? recorderArgv(log));
    const stepsFile = join(env.root, `steps-${id}.json`);
    const out = join(env.root, `answers-${id}.json`);
    writeFileSync(stepsFile, JSON.stringify(steps));
    const split = await env.call<{ pane_id: string }>('pane.split', { command: [process.execPath, '--import', TSX, PI_DRIVER, ext, stepsFile, out, '--stay'], env: o.paneEnv ?? {}, focus: false });
    const answers = await waitFor(() => (existsSync(out) ? (JSON.parse(readFileSync(out, 'utf8')) as Answers) : undefined), {
      timeoutMs: 30_000,
      message: `driver ${id} done`,
      observe: async () => ({ screen: await readPane(env, split.pane_id).catch((e) => String(e)), spawned: recorded(log), bridgeLog: bridgeLogOf(env) }),
    });
    return { pane: split.pane_id, log, answers };
  }

  test('state events reach the badge with no process spawned', async () => {
    const d = await drive([
      { event: 'session_start', payload: { reason: 'startup' } },
      { event: 'agent_start' },
      { event: 'turn_start' },
      { event: 'tool_result', payload: { toolName: 'bash', toolCallId: 't1', isError: false } },
      { event: 'turn_start' },
      { event: 'agent_end', payload: { messages: [{ role: 'assistant', content: [{ type: 'text', text: 'ok' }], stopReason: 'stop' }] } },
    ]);
    const p = await waitForPane(env, d.pane, (x) => x.agent.state === 'done' && x.agent.source === 'hook', { timeoutMs: 15_000 });
    assert.equal(p.agent.name, 'pi');
    assert.deepEqual(recorded(d.log), [], 'nothing went through a spawned bridge');
  });

  test('a burst of 300 events lands in order: the last one decides the badge', async () => {
    const mid: DriverStep[] = [];
    for (let i = 0; i < 149; i++) mid.push({ event: 'turn_start' }, { event: 'tool_result', payload: { toolName: 'read', toolCallId: `c${i}` } });
    const d = await drive([{ event: 'agent_start' }, ...mid, { event: 'agent_end', payload: {} }]);
    await waitForPane(env, d.pane, (x) => x.agent.state === 'done', { timeoutMs: 20_000 });
    const d2 = await drive([{ event: 'agent_end', payload: {} }, ...mid, { event: 'agent_start' }]);
    await waitForPane(env, d2.pane, (x) => x.agent.state === 'working', { timeoutMs: 20_000 });
    assert.deepEqual([...recorded(d.log), ...recorded(d2.log)], []);
    // The badge stays put afterwards: no late report overtakes the last one.
    const info = await env.call<{ agent: { state: string } }>('pane.get', { pane_id: d.pane });
    assert.equal(info.agent.state, 'done');
  });

  test('tool calls the server decides: allowed, and denied as {block, reason}, with no process spawned', async () => {
    const d = await drive([
      { event: 'tool_call', payload: { toolName: 'bash', toolCallId: 'a', input: { command: 'ls' } }, await: true },
      { event: 'tool_call', payload: { toolName: 'write', toolCallId: 'b', input: { path: join(env.home, 'f'), content: 'x' } }, await: true },
    ]);
    const [allow, deny] = d.answers.answers;
    assert.equal(allow.answer, null);
    const a = deny.answer as { block?: boolean; reason?: string };
    assert.equal(a.block, true);
    assert.match(a.reason!, /^castellan: the permission policy denies write/);
    assert.deepEqual(recorded(d.log), []);
    const audit = readFileSync(join(env.stateDir, 'audit.jsonl'), 'utf8');
    assert.match(audit, new RegExp(`"pid":${d.answers.pid}\\b`), 'audited with pi\'s pid, as the bridge would');
  });

  test('a tool call that needs a hook process goes to the spawned bridge, and its deny stays a deny', async () => {
    const d = await drive([{ event: 'tool_call', payload: { toolName: 'grep', toolCallId: 'g', input: { pattern: 'x', path: env.home } }, await: true }], {
      argv: [process.execPath, BIN],
      paneEnv: { CASTELLAN_HOOK_DEBUG: '1' },
    });
    const a = d.answers.answers[0].answer as { block?: boolean; reason?: string };
    assert.equal(a.block, true);
    assert.match(a.reason!, /no grepping here/);
    const log = readFileSync(join(env.stateDir, 'hook-bridge.log'), 'utf8');
    assert.match(log, /pi tool_call .*governed by the bridge/);
  });

  test('a tool result the server cannot record (pi has another HOME): the bridge records it in the background, reports nothing, and agent_end is not kept waiting', async () => {
    const other = join(env.root, 'pi-home');
    mkdirSync(other, { recursive: true });
    const d = await drive(
      [
        { event: 'agent_start' },
        { event: 'tool_result', payload: { toolName: 'bash', toolCallId: 'r1', isError: false } },
        { event: 'turn_start' },
        { event: 'agent_end', payload: {} },
      ],
      { argv: [process.execPath, BIN], paneEnv: { HOME: other, CASTELLAN_HOOK_DEBUG: '1' } },
    );
    const t0 = Date.now();
    await waitForPane(env, d.pane, (x) => x.agent.state === 'done', { timeoutMs: 15_000 });
    const bridgeLog = join(other, '.local', 'state', 'castellan', 'hook-bridge.log');
    const log = await waitFor(() => (existsSync(bridgeLog) && /governed by the bridge/.test(readFileSync(bridgeLog, 'utf8')) ? readFileSync(bridgeLog, 'utf8') : undefined), { timeoutMs: 20_000, message: 'the bridge recorded the tool result' });
    assert.match(log, /pi tool_result .*skipped: reported over the socket already/);
    assert.ok(Date.now() - t0 < 20_000);
    // The bridge's late run did not put the badge back to working.
    const info = await env.call<{ agent: { state: string } }>('pane.get', { pane_id: d.pane });
    assert.equal(info.agent.state, 'done');
  });

  test('in a pane of `castellan agent start`: the agent\'s tool hooks answer through the bridge, its PostSampling hooks from the server', async () => {
    const seen = join(env.home, 'post-sampling.json');
    const stepsFile = join(env.root, 'agent-steps.json');
    const out = join(env.root, 'agent-answers.json');
    const log = join(env.root, 'agent-spawned.log');
    const ext = writeExtension(env.root, 'ext-agent', [process.execPath, BIN]);
    writeFileSync(
      stepsFile,
      JSON.stringify([
        { event: 'agent_start' },
        { event: 'tool_call', payload: { toolName: 'bash', toolCallId: 'x', input: { command: 'ls' } }, await: true },
        { event: 'agent_end', payload: { messages: [{ role: 'user', content: 'q' }, { role: 'assistant', content: [{ type: 'text', text: 'the answer is 42' }], stopReason: 'stop' }] } },
      ] satisfies DriverStep[]),
    );
    writeAgent(
      join(env.home, '.castellan', 'agents'),
      'pa.md',
      `
name: pa
description: pi-like fake
command: ${process.execPath} --import ${TSX} ${PI_DRIVER} ${ext} ${stepsFile} ${out} --stay
agent: pi
hooks:
  SubagentStop:
    - type: deny
      pattern: "bash|shell"
      reason: "pa runs no shell"
  PostSampling:
    - type: command
      command: "cat > ${seen}"
`,
    );
    const started = await env.call<{ agent_id: string; pane_id: string }>('agent.start', { name: 'pa' });
    const answers = await waitFor(() => (existsSync(out) ? (JSON.parse(readFileSync(out, 'utf8')) as Answers) : undefined), { timeoutMs: 30_000, message: 'agent driver done' });
    const a = answers.answers.find((x) => x.event === 'tool_call')!.answer as { block?: boolean; reason?: string };
    assert.equal(a.block, true);
    assert.match(a.reason!, /pa runs no shell/);
    await waitForPane(env, started.pane_id, (x) => x.agent.state === 'done', { timeoutMs: 15_000 });
    const post = await waitFor(() => (existsSync(seen) && readFileSync(seen, 'utf8').includes('}') ? JSON.parse(readFileSync(seen, 'utf8')) : undefined), { timeoutMs: 15_000, message: 'PostSampling ran' });
    assert.equal(post.message, 'the answer is 42');
    assert.equal(post.agent_id, started.agent_id);
    assert.deepEqual(recorded(log), []);
  });
});
