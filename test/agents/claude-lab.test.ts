// End to end with the real Claude Code from agent-lab (against the lab's mock model): an agent definition whose
// SubagentStop denies Bash, started with `castellan agent start`; the mock asks for `touch x`; Claude must not run it
// and must show castellan's reason. Opt-in (a real agent takes ~20 s): CASTELLAN_LAB=1 node scripts/run-tests.mjs claude-lab
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ApiClient } from '../../src/api/client.js';
import agentStart from '../../src/cli/commands/agent-start.js';
import type { CliContext } from '../../src/cli/define-command.js';
import { resolvePaths } from '../../src/platform/paths.js';
import { readPane } from '../support/api.js';
import { tempEnvFor } from '../support/temp-env.js';
import { waitFor } from '../support/wait-for.js';
import { writeAgent } from './support.js';

const LAB = process.env.AGENT_LAB_DIR ?? '/work/shared/agent-lab';
const CLAUDE = process.env.AGENT_LAB_CLAUDE_BIN ?? join(process.env.AGENT_LAB_HOME ?? join(homedir(), '.cache', 'agent-lab'), 'installs', 'claude', 'node_modules', '.bin', 'claude');
const skip = !process.env.CASTELLAN_LAB ? 'set CASTELLAN_LAB=1 to run the real-Claude check' : !existsSync(CLAUDE) ? `no Claude Code at ${CLAUDE} (agent-lab/install.sh claude)` : false;

test('Claude Code in a castellan agent pane: SubagentStop denies Bash, the command is not run, the reason is on screen', { skip, timeout: 180_000 }, async (t) => {
  const env = tempEnvFor(t);
  const work = join(env.root, 'work');
  const dump = join(env.root, 'mock-dump');
  mkdirSync(work, { recursive: true });
  // The lab mock, private to this test (its state and HOME under the temp root, so cleanup ends it).
  const mockEnv = { ...env.env, MOCK_DUMP_DIR: dump, MOCK_SLOW_SECONDS: '1' };
  const port = execFileSync(process.execPath, [join(LAB, 'mock', 'mockctl.js'), 'ensure', '--state', join(env.root, 'mock')], { env: mockEnv, encoding: 'utf8' }).trim();
  t.after(() => execFileSync(process.execPath, [join(LAB, 'mock', 'mockctl.js'), 'stop', '--state', join(env.root, 'mock')], { env: mockEnv, stdio: 'ignore' }));
  assert.match(port, /^\d+$/);
  // Claude's files (onboarding done, the work dir trusted) in the temp HOME, then castellan's bridge into its settings.
  execFileSync(process.execPath, [join(LAB, 'lib', 'prepare.js'), 'claude', env.home, work, port], { env: env.env });
  const inst = await env.cli(['integrations', 'install', 'claude']);
  assert.equal(inst.code, 0, inst.stderr);
  const settings = readFileSync(join(env.home, '.claude', 'settings.json'), 'utf8');
  assert.match(settings, /castellan\.js hook claude PreToolUse/);

  const claudeEnv = `ANTHROPIC_BASE_URL=http://127.0.0.1:${port} ANTHROPIC_API_KEY=sk-test DISABLE_AUTOUPDATER=1 DISABLE_TELEMETRY=1 DISABLE_ERROR_REPORTING=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1`;
  writeAgent(
    join(work, '.castellan', 'agents'),
    'no-bash.md',
    `
name: no-bash
description: Claude that may not run shell commands
command: env ${claudeEnv} ${CLAUDE} --permission-mode manual
hooks:
  SubagentStart:
    - type: command
      command: "echo 'Agent started: {{agentType}} ({{agentId}})'"
  SubagentStop:
    - type: deny
      pattern: Bash
      reason: "no-bash agents may not run shell commands"
`,
    'You are the no-bash agent. Never run shell commands.\n',
  );
  assert.equal((await env.cli(['trust'], { cwd: work })).code, 0);
  const srv = await env.cli(['server', 'start', '--cols', '160', '--rows', '45'], { cwd: work });
  assert.equal(srv.code, 0, srv.stderr);
  // `castellan agent start no-bash --json --prompt ...`, through the command module (its CLI row is added in src/cli/table.ts).
  const out: string[] = [];
  const paths = resolvePaths({ env: env.env });
  const ctx: CliContext = { paths, env: env.env, cwd: work, out: (x) => out.push(x), err: (x) => out.push(x), connect: () => ApiClient.connect(paths.socket), version: 'test' };
  assert.equal(await agentStart.run(ctx, { values: { json: true, prompt: 'Please RUN: touch x' }, positionals: ['no-bash'], rest: [] }), 0);
  const r = JSON.parse(out[0]) as { agent_id: string; pane_id: string; delivery: string };
  assert.equal(r.delivery, 'session_start');

  const screen = async () => (await readPane(env, r.pane_id, { source: 'scrollback' })).join('\n');
  // Claude wraps long lines: compare with the whitespace folded.
  const flat = (s: string) => s.replace(/[\s│]+/g, ' ');
  const shown = await waitFor(async () => {
    const s = await screen();
    return /Reason: .*no-bash agents may not run shell commands/.test(flat(s)) ? s : '';
  }, { timeoutMs: 90_000, intervalMs: 250, message: 'the deny reason on Claude\'s screen', observe: screen });
  assert.match(flat(shown), /\$ touch x ⎿ Not run · permission denied/);
  assert.match(flat(shown), /<directive source="castellan:agent:no-bash:SubagentStop" reason="no-bash agents may not run shell commands">/);
  assert.equal(existsSync(join(work, 'x')), false, 'the denied command did not run');

  // The first message reached the model: the mock saw castellan's tagged context in Claude's request.
  const bodies = readdirSync(dump).map((f) => readFileSync(join(dump, f), 'utf8')).join('\n');
  assert.match(bodies, /castellan:agent:no-bash:instructions/);
  assert.match(bodies, /Agent started: no-bash \(no-bash-[0-9a-f]{4}\)/);
  const at = bodies.indexOf('castellan:agent:no-bash:instructions');
  t.diagnostic(`model request: ${bodies.slice(Math.max(0, at - 200), at + 400).replace(/\s+/g, ' ')}`);
  t.diagnostic(`screen:\n${shown.split('\n').filter((l) => l.trim()).slice(-14).join('\n')}`);
});
