// With the real Claude Code from agent-lab (against the lab's mock model) as the parent of a recursive episode: the
// skill installed, Claude started with `castellan run --rlm`, the mock scripted to delegate through Claude's Bash tool.
// A child pane opens beside it, the parent's `herd wait --children` returns and its `pane read` reads the child's answer.
// Opt-in (a real agent): CASTELLAN_LAB=1 node scripts/run-tests.mjs episodes/claude-lab   (after `npm run build`)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiClient } from '../../src/api/client.js';
import installSkill from '../../src/cli/commands/integrations-install-skill.js';
import type { CliContext } from '../../src/cli/define-command.js';
import { resolvePaths } from '../../src/platform/paths.js';
import { BIN, tempEnvFor } from '../support/temp-env.js';
import { readPane, startAttached, waitForPane } from '../support/term-harness.js';
import { waitFor } from '../support/wait-for.js';

const LAB = process.env.AGENT_LAB_DIR ?? '/work/shared/agent-lab';
const CLAUDE = process.env.AGENT_LAB_CLAUDE_BIN ?? join(process.env.AGENT_LAB_HOME ?? join(homedir(), '.cache', 'agent-lab'), 'installs', 'claude', 'node_modules', '.bin', 'claude');
const skip = !process.env.CASTELLAN_LAB ? 'set CASTELLAN_LAB=1 to run the real-Claude check' : !existsSync(CLAUDE) ? `no Claude Code at ${CLAUDE} (agent-lab/install.sh claude)` : false;

test('Claude Code as the parent of a recursive episode: it spawns a helper pane, waits for it and reads its answer', { skip, timeout: 240_000 }, async (t) => {
  // `castellan` on PATH for Claude's Bash tool (the panes inherit the server's PATH).
  const bin = mkdtempSync(join(tmpdir(), 'cst-bin-'));
  t.after(() => rmSync(bin, { recursive: true, force: true }));
  writeFileSync(join(bin, 'castellan'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"\n`, { mode: 0o755 });
  const env = tempEnvFor(t, { env: { PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}` } });
  const work = join(env.root, 'work');
  const dump = join(env.root, 'mock-dump');
  mkdirSync(work, { recursive: true });
  const mockEnv = { ...env.env, MOCK_DUMP_DIR: dump, MOCK_SLOW_SECONDS: '1' };
  const port = execFileSync(process.execPath, [join(LAB, 'mock', 'mockctl.js'), 'ensure', '--state', join(env.root, 'mock')], { env: mockEnv, encoding: 'utf8' }).trim();
  t.after(() => execFileSync(process.execPath, [join(LAB, 'mock', 'mockctl.js'), 'stop', '--state', join(env.root, 'mock')], { env: mockEnv, stdio: 'ignore' }));
  execFileSync(process.execPath, [join(LAB, 'lib', 'prepare.js'), 'claude', env.home, work, port], { env: env.env });
  const inst = await env.cli(['integrations', 'install', 'claude']);
  assert.equal(inst.code, 0, inst.stderr);
  // `castellan integrations install-skill claude --use-path`, through the command module (its CLI row goes in src/cli/table.ts).
  const paths = resolvePaths({ env: env.env });
  const out: string[] = [];
  const ctx: CliContext = { paths, env: env.env, cwd: work, out: (x) => out.push(x), err: (x) => out.push(x), connect: () => ApiClient.connect(paths.socket), version: 'test' };
  assert.equal(await installSkill.run(ctx, { values: { 'use-path': true }, positionals: ['claude'], rest: [] }), 0, out.join('\n'));
  assert.match(readFileSync(join(env.home, '.claude', 'skills', 'castellan', 'SKILL.md'), 'utf8'), /^---\nname: castellan\n/);
  // The helper: answers, reports done (as an agent's hook bridge would), stays alive until its parent ends.
  writeFileSync(join(work, 'helper.sh'), '#!/bin/sh\necho "HELPER ANSWER: 42"\ncastellan herd report --pane . --agent helper --state done --source hook\nexec sleep 600\n', { mode: 0o755 });
  // Every SessionStart/SessionEnd payload, from the user layer.
  mkdirSync(join(env.home, '.castellan'), { recursive: true });
  writeFileSync(join(env.home, '.castellan', 'config.toml'), ['SessionStart', 'SessionEnd'].map((e) => `[[hooks.hooks]]\nevent = "${e}"\ncommand = "{ cat; echo; } >> \\"$HOME/hooks.jsonl\\""\n`).join('\n'));

  const claudeEnv = [`ANTHROPIC_BASE_URL=http://127.0.0.1:${port}`, 'ANTHROPIC_API_KEY=sk-test', 'DISABLE_AUTOUPDATER=1', 'DISABLE_TELEMETRY=1', 'DISABLE_ERROR_REPORTING=1', 'CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1'];
  const srv = await env.cli(['server', 'start', '--cols', '200', '--rows', '50', '--', 'castellan', 'run', '--rlm', '--goal', 'lab-goal', '--plugin', 'claude', '--', 'env', ...claudeEnv, CLAUDE, '--permission-mode', 'manual'], { cwd: work });
  assert.equal(srv.code, 0, srv.stderr);
  const ui = await startAttached(env, { cols: 200, rows: 51, prompt: false, cwd: work });
  await waitForPane(env, 'w1:p1', (p) => p.agent.name === 'claude' && p.agent.state === 'idle', { timeoutMs: 60_000, message: 'Claude is up (its SessionStart hook said idle)' });

  const cmd = 'Please RUN: h=$(castellan pane split --sub-harness --name helper -- ./helper.sh) && castellan herd wait --children --status idle,blocked,done --timeout-ms 60000 && castellan pane read --pane $h';
  await env.call('pane.send_text', { pane_id: 'w1:p1', text: cmd, paste: true });
  await env.call('pane.send_keys', { pane_id: 'w1:p1', keys: ['Enter'] });
  const screen = async () => (await readPane(env, 'w1:p1', { source: 'scrollback' })).join('\n');
  // Claude asks before running the command (manual mode): approve it, as a user would.
  await waitForPane(env, 'w1:p1', (p) => p.agent.state === 'blocked', { timeoutMs: 60_000, message: 'Claude asks to run the command' });
  const asking = async () => (await readPane(env, 'w1:p1')).some((l) => l.includes('Do you want to proceed?'));
  await waitFor(asking, { timeoutMs: 30_000, message: 'the permission dialog' });
  // The dialog may take a moment to read keys: press Enter until it is gone.
  await waitFor(async () => {
    if (!(await asking())) return true;
    await env.call('pane.send_keys', { pane_id: 'w1:p1', keys: ['Enter'] });
    return waitFor(async () => !(await asking()), { timeoutMs: 1500, intervalMs: 100 }).then(() => true, () => false);
  }, { timeoutMs: 30_000, message: 'the command approved' });
  const flat = (s: string) => s.replace(/[\s│]+/g, ' ');
  const shown = await waitFor(async () => {
    const s = await screen();
    return /Tool finished\. Result: .*HELPER ANSWER: 42/.test(flat(s)) ? s : '';
  }, { timeoutMs: 120_000, intervalMs: 250, message: 'the helper\'s answer in Claude\'s tool result', observe: screen });
  assert.match(flat(shown), /w1:p2: done/, 'herd wait --children returned once the helper was done');

  // The helper pane: beside Claude, p1→p2 in its border, counted in Claude's badge.
  const frames = await ui.frames();
  const p1 = frames.find((f) => f.label === 'p1')!;
  const p2 = frames.find((f) => f.label === 'p2')!;
  assert.ok(p1 && p2, ui.describe());
  assert.equal(p2.x, p1.x + p1.w);
  const top = (await ui.screenText())[0];
  assert.match(top, /╭ w1:p1→p2 helper /);
  assert.match(top, /claude [○●✔] \w+ ⎇1 ✔1/, top);
  const info = await env.call<{ panes: Array<{ pane_id: string; parent?: string }> }>('pane.list');
  assert.equal(info.panes.find((p) => p.pane_id === 'w1:p2')?.parent, 'w1:p1');
  // Hooks: the root session (castellan run) and the helper's (the server), with the goal, parent and depth.
  const hooks = () => (existsSync(join(env.home, 'hooks.jsonl')) ? readFileSync(join(env.home, 'hooks.jsonl'), 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as Record<string, unknown>) : []);
  const starts = hooks().filter((h) => h.event === 'SessionStart').map((h) => [h.pane_id, h.goal_id, h.parent_pane, h.depth, h.plugin]);
  assert.deepEqual(starts, [
    ['w1:p1', 'lab-goal', null, 0, 'claude'],
    ['w1:p2', 'lab-goal', 'w1:p1', 1, 'helper.sh'],
  ]);
  // The skill reached the model (Claude lists skills by name and description).
  const bodies = readdirSync(dump).map((f) => readFileSync(join(dump, f), 'utf8')).join('\n');
  t.diagnostic(`skill in the model's context: ${bodies.includes('Delegate work to helper agents in castellan panes')}`);
  t.diagnostic(`screen:\n${flat(shown).slice(-600)}`);
  t.diagnostic(`top border: ${top.trim()}`);

  // Claude exits: its tree goes with it.
  await env.call('pane.send_text', { pane_id: 'w1:p1', text: '/exit', paste: false });
  await env.call('pane.send_keys', { pane_id: 'w1:p1', keys: ['Enter'] });
  await waitForPane(env, 'w1:p1', (p) => !!p.exited, { timeoutMs: 30_000, message: 'Claude exited' });
  await waitFor(async () => (await env.call<{ panes: unknown[] }>('pane.list')).panes.length === 1, { message: 'the helper pane was closed with its parent' });
  await waitFor(() => hooks().filter((h) => h.event === 'SessionEnd').length === 2, { timeoutMs: 15_000, message: 'both SessionEnd hooks ran', observe: () => hooks() });
  const ends = hooks().filter((h) => h.event === 'SessionEnd').map((h) => [h.pane_id, h.status, h.depth]);
  assert.deepEqual(ends, [
    ['w1:p2', 'closed', 1],
    ['w1:p1', 'ok', 0],
  ]);
});
