// Hooks on each event with real scripts: the payload they read, exit codes failing the operation, timeouts, the controlled environment, the audit log.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { governPostToolUse, governPreToolUse, governSessionEnd, governSessionStart } from '../../src/hooks/pipeline.js';
import { trustFile } from '../../src/config/trust.js';
import { waitFor } from '../support/wait-for.js';
import { alive, hookToml, makeWorld, readJson, type World } from './helpers.js';

let w: World;
const out = (name: string) => join(w.root, 'out', `${name}.json`);

before(() => {
  w = makeWorld();
  w.write('out/.keep', '');
  // Each capture hook stores its stdin payload and its environment (as JSON) for the test to read.
  const capture = (name: string) => w.script(`capture-${name}.sh`, `cat > ${out(name)}\nenv > ${out(name)}.env\npwd > ${out(name)}.cwd`);
  const toml = [
    hookToml({ event: 'SessionStart', command: capture('start'), id: 'start' }),
    hookToml({ event: 'session_end', command: capture('end'), id: 'end' }),
    hookToml({ event: 'PreToolUse', command: capture('pre'), matcher: 'shell|exec', id: 'pre' }),
    hookToml({ event: 'post_tool_use', command: capture('post'), matcher: 'shell', id: 'post' }),
    hookToml({ event: 'PreToolUse', command: 'echo "no deploys on friday" >&2; exit 2', matcher: 'deploy', id: 'gate' }),
    hookToml({ event: 'PreToolUse', command: `sleep 1000 & echo "$$ $!" > ${join(w.root, 'out', 'slow.pids')}; sleep 1000`, matcher: 'slow', id: 'slow', timeout_ms: 300 }),
    hookToml({ event: 'SessionStart', command: 'echo "goal needs a ticket" >&2; exit 1', matcher: 'strict-agent', id: 'strict' }),
    hookToml({ event: 'PostToolUse', command: 'echo "post failed" >&2; exit 1', matcher: 'flaky', id: 'flaky' }),
  ].join('\n');
  w.write('proj/castellan.toml', toml);
  trustFile(w.paths.trustFile, join(w.project, 'castellan.toml'));
});
after(() => w.cleanup());

const envOf = (name: string): Record<string, string> =>
  Object.fromEntries(
    readFileSync(`${out(name)}.env`, 'utf8')
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );

describe('hook payloads, one JSON line per event', () => {
  test('SessionStart gets goal_id and plugin', async () => {
    const r = await governSessionStart({ goalId: 'g-1', plugin: 'claude', paneId: 'w1:p2', cwd: w.project }, w.opts());
    assert.equal(r.ok, true);
    const p = readJson(out('start'));
    assert.equal(p.event, 'SessionStart');
    assert.equal(p.goal_id, 'g-1');
    assert.equal(p.plugin, 'claude');
    assert.equal(p.pane_id, 'w1:p2');
    assert.equal(p.session, 'default');
    assert.equal(p.cwd, w.project);
    assert.ok(!Number.isNaN(Date.parse(String(p.timestamp))));
    assert.equal(readFileSync(`${out('start')}.cwd`, 'utf8').trim(), w.project, 'cwd is the project root');
    assert.ok(r.events.some((e) => e.type === 'hook_run' && e.hook_id === 'start' && e.outcome === 'ok'));
  });

  test('SessionEnd gets goal_id and status', async () => {
    const r = await governSessionEnd({ goalId: 'g-1', plugin: 'claude', status: 'failed', exitCode: 3, cwd: w.project }, w.opts());
    assert.equal(r.ok, true);
    const p = readJson(out('end'));
    assert.deepEqual([p.event, p.goal_id, p.status, p.exit_code], ['SessionEnd', 'g-1', 'failed', 3]);
  });

  test('PreToolUse gets tool, argv and agent_id', async () => {
    const r = await governPreToolUse({ tool: 'shell', argv: ['git', 'status'], agentId: 'agent-7', paneId: 'w1:p1', cwd: w.project }, w.opts());
    assert.equal(r.decision, 'allow');
    const p = readJson(out('pre'));
    assert.deepEqual([p.event, p.tool, p.argv, p.agent_id], ['PreToolUse', 'shell', ['git', 'status'], 'agent-7']);
  });

  test('PostToolUse gets tool, argv and success', async () => {
    const r = await governPostToolUse({ tool: 'shell', argv: ['false'], success: false, exitCode: 1, cwd: w.project }, w.opts());
    assert.equal(r.ok, true);
    const p = readJson(out('post'));
    assert.deepEqual([p.event, p.tool, p.argv, p.success], ['PostToolUse', 'shell', ['false'], false]);
  });
});

describe('exit codes', () => {
  test('a failing PreToolUse hook denies, with its stderr as the reason', async () => {
    const o = w.opts();
    const r = await governPreToolUse({ tool: 'deploy', argv: ['deploy', 'prod'], cwd: w.project }, o);
    assert.equal(r.decision, 'deny');
    assert.equal(r.source, 'hook');
    assert.equal(r.reason, 'no deploys on friday');
    const run = o.events.find((e) => e.type === 'hook_run' && e.hook_id === 'gate');
    assert.equal(run?.outcome, 'failed');
    assert.equal(run?.exit_code, 2);
  });

  test('a failing SessionStart hook aborts the start with its stderr', async () => {
    const r = await governSessionStart({ goalId: 'g-2', plugin: 'strict-agent', cwd: w.project }, w.opts());
    assert.equal(r.ok, false);
    assert.equal(r.reason, 'goal needs a ticket');
  });

  test('a failing PostToolUse hook is reported', async () => {
    const r = await governPostToolUse({ tool: 'flaky', argv: ['x'], success: true, cwd: w.project }, w.opts());
    assert.equal(r.ok, false);
    assert.equal(r.reason, 'post failed');
  });
});

describe('timeouts', () => {
  test('a hook that sleeps forever (with a grandchild) is killed with its group and denies in bounded time', async () => {
    const started = Date.now();
    const r = await governPreToolUse({ tool: 'slow', argv: ['x'], cwd: w.project }, w.opts());
    const took = Date.now() - started;
    assert.equal(r.decision, 'deny');
    assert.match(r.reason ?? '', /timed out after 300 ms/);
    assert.ok(took < 300 + 1000, `took ${took} ms`);
    const pids = readFileSync(join(w.root, 'out', 'slow.pids'), 'utf8').trim().split(' ').map(Number);
    assert.equal(pids.length, 2);
    await waitFor(() => pids.every((p) => !alive(p)), { timeoutMs: 2000, message: `hook processes ${pids} gone` });
  });
});

describe('controlled environment', () => {
  test('secrets do not reach hooks; CASTELLAN_* describe the event', async () => {
    const opts = w.opts({ env: { ...w.env, AWS_SECRET_ACCESS_KEY: 'hunter2', CASTELLAN_FAKE: 'x', BASH_ENV: '/etc/evil', CASTELLAN_GOAL_ID: 'g-env' } });
    await governPreToolUse({ tool: 'exec', argv: ['ls'], agentId: 'a-env', paneId: 'w3:p4', cwd: w.project }, opts);
    const env = envOf('pre');
    assert.equal(env.AWS_SECRET_ACCESS_KEY, undefined);
    assert.equal(env.BASH_ENV, undefined);
    assert.equal(env.CASTELLAN_FAKE, undefined);
    assert.equal(env.HOME, w.home);
    assert.ok(env.PATH);
    assert.equal(env.CASTELLAN_HOOK_EVENT, 'PreToolUse');
    assert.equal(env.CASTELLAN_TOOL, 'exec');
    assert.equal(env.CASTELLAN_AGENT_ID, 'a-env');
    assert.equal(env.CASTELLAN_PANE_ID, 'w3:p4');
    assert.equal(env.CASTELLAN_GOAL_ID, 'g-env');
    assert.equal(env.CASTELLAN_SESSION, 'default');
    assert.equal(env.CASTELLAN_SOCKET, w.paths.socket);
  });
});

describe('audit log', () => {
  test('every hook run and decision is a JSON line in a 0600 file', async () => {
    await governPreToolUse({ tool: 'shell', argv: ['echo', 'audited'], agentId: 'auditor', paneId: 'w1:p9', cwd: w.project }, w.opts({ audit: undefined }));
    assert.equal(statSync(w.paths.auditLog).mode & 0o777, 0o600);
    const lines = w.auditLines();
    const run = lines.find((l) => l.type === 'hook_run' && l.agent_id === 'auditor');
    assert.ok(run, 'hook_run line');
    assert.equal(run.pane, 'w1:p9');
    assert.equal(run.outcome, 'ok');
    assert.equal(typeof run.duration_ms, 'number');
    assert.equal(run.command, join(w.root, 'scripts', 'capture-pre.sh'));
    const decision = lines.find((l) => l.type === 'governance_decision' && l.agent_id === 'auditor');
    assert.deepEqual([decision?.decision, decision?.argv], ['allow', ['echo', 'audited']]);
    assert.ok(typeof decision?.ts === 'string');
  });
});
