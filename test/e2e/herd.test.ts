// E2E: a fake agent in a pane reports through the real hook bridge; `castellan herd wait` returns when it goes idle/done.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, tempEnvFor, type TempEnv } from '../support/temp-env.js';
import { waitForPane } from '../support/term-harness.js';
import { waitFor } from '../support/wait-for.js';

/** A shell "agent": reports a turn through `castellan hook claude ...` exactly as Claude Code's hooks would. */
function fakeAgent(env: TempEnv): string {
  const path = join(env.home, 'fake-agent.sh');
  const hook = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} hook claude`;
  writeFileSync(
    path,
    [
      '#!/bin/sh',
      `echo '{"session_id":"s1","hook_event_name":"SessionStart","source":"startup"}' | ${hook} SessionStart`,
      'echo "agent ready"',
      'while read -r prompt; do',
      `  printf '{"session_id":"s1","hook_event_name":"UserPromptSubmit","prompt":"%s"}' "$prompt" | ${hook} UserPromptSubmit`,
      '  echo "working on: $prompt"',
      '  read -r go',
      `  echo '{"session_id":"s1","hook_event_name":"Stop","last_assistant_message":"done"}' | ${hook} Stop`,
      '  echo "turn finished"',
      'done',
    ].join('\n') + '\n',
    { mode: 0o755 },
  );
  return path;
}

/** Until the server has an event subscriber: the background `herd wait` is in place. */
async function armed(env: TempEnv): Promise<void> {
  await waitFor(async () => (await env.call<{ subscribers: number }>('ping')).subscribers >= 1, { message: 'herd wait subscribed' });
}

/** Runs `castellan herd wait ...` in the background; resolves with its exit code and output. */
function herdWait(env: TempEnv, args: string[]) {
  const child = spawn(process.execPath, [BIN, 'herd', 'wait', ...args], { env: env.env, cwd: env.home });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  let exited = false;
  const done = new Promise<{ code: number | null; out: string; err: string }>((resolve) => child.on('exit', (code) => ((exited = true), resolve({ code, out, err }))));
  return { done, get exited() { return exited; }, kill: () => child.kill('SIGKILL') };
}

test('a fake agent reports through the bridge; herd wait returns when its turn is done', async (t) => {
  const env = tempEnvFor(t);
  assert.equal((await env.cli(['server', 'start', '--cols', '120', '--rows', '30'])).code, 0);
  const agent = fakeAgent(env);
  const { pane_id } = await env.call<{ pane_id: string }>('pane.split', { pane_id: 'w1:p1', command: [agent] });
  const p = await waitForPane(env, pane_id, (x) => x.agent.name === 'claude' && x.agent.state === 'idle', { message: 'SessionStart reported idle' });
  assert.equal(p.agent.source, 'hook', JSON.stringify(p));
  await env.call('pane.send_text', { pane_id, text: 'fix the bug', enter: true });
  await waitForPane(env, pane_id, (x) => x.agent.state === 'working', { message: 'UserPromptSubmit reported working' });

  const w = herdWait(env, ['--pane', pane_id, '--status', 'idle,done', '--timeout-ms', '20000', '--json']);
  t.after(() => w.kill());
  await armed(env);
  assert.equal(w.exited, false, 'herd wait is still waiting while the agent works');
  await env.call('pane.send_text', { pane_id, text: 'go', enter: true });
  const r = await w.done;
  assert.equal(r.code, 0, r.err);
  const ev = JSON.parse(r.out) as { type: string; pane: string; new: string; source: string };
  assert.equal(ev.type, 'pane_agent_status_changed');
  assert.equal(ev.pane, pane_id);
  assert.ok(['idle', 'done'].includes(ev.new));
  assert.equal(ev.source, 'hook', r.out);
  // no client is looking at it: the finished turn is "done" until someone focuses it
  assert.equal((await waitForPane(env, pane_id, () => true)).agent.state, 'done');
  const again = await env.cli(['herd', 'wait', '--pane', pane_id, '--status', 'done', '--timeout-ms', '5000']);
  assert.equal(again.code, 0, 'a wait on a state already reached returns at once');
  assert.match(again.stdout, new RegExp(`${pane_id}: done`));
  const list = await env.cli(['herd', 'list', '--json']);
  assert.equal((JSON.parse(list.stdout) as Array<{ pane_id: string; state: string }>).find((x) => x.pane_id === pane_id)?.state, 'done');
});

test('herd wait exit codes: 124 on timeout, 4 when the pane closes, 2 on bad usage, 3 with no server', async (t) => {
  const env = tempEnvFor(t);
  assert.equal((await env.cli(['herd', 'wait', '--pane', 'w1:p1', '--status', 'idle'])).code, 3, 'no server');
  assert.equal((await env.cli(['server', 'start'])).code, 0);
  await env.call('pane.report_agent', { pane_id: 'w1:p1', agent: 'claude', state: 'working', source: 'hook' });
  const t0 = Date.now();
  const timeout = await env.cli(['herd', 'wait', '--pane', 'w1:p1', '--status', 'idle', '--timeout-ms', '300']);
  assert.equal(timeout.code, 124);
  assert.match(timeout.stderr, /timed out after 300 ms \(w1:p1 working\)/);
  assert.ok(Date.now() - t0 < 5000);
  assert.equal((await env.cli(['herd', 'wait', '--pane', 'w1:p1', '--status', 'sleeping'])).code, 2);
  assert.equal((await env.cli(['herd', 'wait', '--status', 'idle'])).code, 2, 'no pane given');
  const { pane_id } = await env.call<{ pane_id: string }>('pane.split', { pane_id: 'w1:p1' });
  await env.call('pane.report_agent', { pane_id, agent: 'codex', state: 'working', source: 'hook' });
  const w = herdWait(env, ['--pane', pane_id, '--status', 'idle', '--timeout-ms', '20000']);
  t.after(() => w.kill());
  await armed(env);
  await env.call('pane.close', { pane_id });
  const r = await w.done;
  assert.equal(r.code, 4, r.err);
  assert.match(r.err, /was closed/);
  const gone = await env.cli(['herd', 'wait', '--pane', 'w1:p9', '--status', 'idle']);
  assert.equal(gone.code, 4, 'a pane that does not exist');
});

test('--all waits for every pane; herd report/reset from the CLI', async (t) => {
  const env = tempEnvFor(t);
  const start = await env.cli(['server', 'start']);
  assert.equal(start.code, 0, start.stderr);
  const { pane_id: p2 } = await env.call<{ pane_id: string }>('pane.split', { pane_id: 'w1:p1' });
  for (const p of ['w1:p1', p2]) {
    const r = await env.cli(['herd', 'report', '--pane', p, '--agent', 'pi', '--state', 'working', '--source', 'hook']);
    assert.equal(r.code, 0, `report ${p}: ${r.stderr}`);
  }
  const w = herdWait(env, ['--pane', 'w1:p1', '--pane', p2, '--all', '--status', 'done', '--timeout-ms', '20000']);
  t.after(() => w.kill());
  await armed(env);
  await env.cli(['herd', 'report', '--pane', 'w1:p1', '--agent', 'pi', '--state', 'done', '--source', 'hook']);
  await env.call('ping');
  assert.equal(w.exited, false, `one of two is not enough for --all (panes: ${JSON.stringify((await env.call<{ panes: Array<{ pane_id: string; agent: unknown }> }>('pane.list')).panes.map((p) => [p.pane_id, p.agent]))})`);
  await env.cli(['herd', 'report', '--pane', p2, '--agent', 'pi', '--state', 'done', '--source', 'hook']);
  const r = await w.done;
  assert.equal(r.code, 0, r.err);
  const reset = await env.cli(['herd', 'reset', '--pane', p2, '--json']);
  assert.equal(reset.code, 0);
  assert.equal((await waitForPane(env, p2, () => true)).agent.hook_locked, false);
});
