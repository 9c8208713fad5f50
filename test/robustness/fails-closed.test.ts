// Fails closed: a policy that cannot be used as written denies the tool call on every gated path (the pipeline, exec,
// MCP, the Node bridge, the server's hook.decide behind the hook door), with the reason naming file and line.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { governPreToolUse } from '../../src/hooks/pipeline.js';
import { handleToolCall } from '../../src/hooks/mcp-server.js';
import { doorCommand } from '../../src/integrations/command-line.js';
import { resolvePaths } from '../../src/platform/paths.js';
import { BIN, makeTempEnv, type TempEnv } from '../support/temp-env.js';
import { runLine } from '../support/hook-line.js';
import { waitFor } from '../support/wait-for.js';

/** Each broken form: what is written where (relative to HOME), and what the reason must say. */
const BROKEN: Array<{ name: string; user?: string | 'dir'; why: RegExp }> = [
  { name: 'a decision in capitals', user: '[governance.permissions]\nshell = "Deny"\n', why: /config\.toml:2: governance\.permissions\.shell: "Deny" is not a decision/ },
  { name: 'a word that is not a decision', user: '[governance.permissions]\nshell = "denied"\n', why: /config\.toml:2: .*"denied" is not a decision/ },
  { name: 'a user config that is a directory', user: 'dir', why: /config\.toml: cannot read config file/ },
  { name: 'a gating hook whose matcher does not compile', user: '[[hooks.hooks]]\nevent = "PreToolUse"\nmatcher = "(["\ncommand = "exit 1"\n', why: /matcher "\(\[" is not a valid regular expression/ },
  { name: 'a misspelt key in the policy', user: '[governance.permision]\nshell = "deny"\n', why: /governance\.permision: unknown key/ },
  { name: 'a misspelt policy section', user: '[governanse.permissions]\nshell = "deny"\n', why: /governanse: unknown section/ },
  { name: 'a TOML syntax error', user: '[governance.permissions]\nshell = deny\n', why: /config\.toml:2: / },
  { name: 'a binary file', user: '\u0000\u0001[governance]\u0000', why: /binary file/ },
  { name: 'a policy section that is not a table', user: 'governance = 3\n', why: /governance: expected a table/ },
  { name: 'a worktree rule that is not a decision', user: '[governance.worktree]\n"git push" = "nope"\n', why: /"nope" is not a decision/ },
];

describe('governance fails closed on a broken policy, on every gated path', { concurrency: false }, () => {
  let env: TempEnv;
  let hookEnv: Record<string, string>;
  let offlineEnv: Record<string, string>;
  const userFile = () => join(env.home, '.castellan', 'config.toml');
  const target = () => join(env.root, 'ran');
  const setPolicy = (user: string | 'dir' | undefined) => {
    rmSync(userFile(), { recursive: true, force: true });
    mkdirSync(join(env.home, '.castellan'), { recursive: true });
    if (user === 'dir') mkdirSync(userFile());
    else if (user !== undefined) writeFileSync(userFile(), user);
  };
  before(async () => {
    env = makeTempEnv();
    setPolicy('');
    assert.equal((await env.cli(['server', 'start', '--cols', '100', '--rows', '30'])).code, 0, env.logTail());
    await waitFor(() => existsSync(join(`${env.socket}.door`, 'pid')), { timeoutMs: 10_000, message: 'the door to open' });
    hookEnv = { ...env.env, CASTELLAN_ENV: '1', CASTELLAN_SOCKET: env.socket, CASTELLAN_PANE_ID: 'w1:p1' };
    // A bridge with no server to ask judges the call itself: the local pipeline.
    offlineEnv = { ...hookEnv, CASTELLAN_SOCKET: join(env.root, 'nobody.sock') };
  });
  after(() => env.cleanup());

  const bash = (cmd: string) => JSON.stringify({ session_id: 's', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: cmd }, cwd: env.home });

  test('with a sound policy every path allows the call (the cases below are not denials for another reason)', async () => {
    setPolicy('[governance.permissions]\nshell = "allow"\n');
    const r = await env.cli(['exec', '--', 'touch', target()]);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(existsSync(target()));
    rmSync(target());
    const door = await runLine(doorCommand([process.execPath, BIN], 'claude', 'PreToolUse'), hookEnv, bash(`touch ${target()}`), { cwd: env.home });
    assert.equal(door.stdout, '', door.stderr);
  });

  for (const b of BROKEN) {
    test(`${b.name}: denied by the pipeline, exec, MCP, the Node bridge and the hook door`, async () => {
      setPolicy(b.user);
      const paths = resolvePaths({ env: env.env });
      const pre = await governPreToolUse({ tool: 'shell', argv: ['touch', target()], cwd: env.home }, { env: env.env, paths, link: null, audit: false });
      assert.equal(pre.decision, 'deny');
      assert.match(pre.reason ?? '', b.why);
      assert.match(pre.reason ?? '', /denies every tool call until it is fixed/);

      const exec = await env.cli(['exec', '--', 'touch', target()]);
      assert.equal(exec.code, 77, `exec ran: ${exec.stderr}`);
      assert.match(exec.stderr, b.why);
      assert.equal(existsSync(target()), false, 'exec ran the command');

      const mcp = await handleToolCall('exec', { argv: ['touch', target()] }, { cwd: env.home, env: env.env, paths, version: 'test', link: null });
      assert.equal(mcp.isError, true);
      assert.match(mcp.content[0].text, /^denied: /);
      assert.equal(existsSync(target()), false, 'MCP ran the command');

      for (const [name, line, e] of [
        ['the Node bridge (no server)', `'${process.execPath}' '${BIN}' hook claude PreToolUse`, offlineEnv],
        ['the Node bridge (the server decides)', `'${process.execPath}' '${BIN}' hook claude PreToolUse`, hookEnv],
        ['the hook door', doorCommand([process.execPath, BIN], 'claude', 'PreToolUse'), hookEnv],
      ] as const) {
        const r = await runLine(line, e, bash(`touch ${target()}`), { cwd: env.home });
        const out = JSON.parse(r.stdout || '{}') as { hookSpecificOutput?: { permissionDecision?: string; permissionDecisionReason?: string } };
        assert.equal(out.hookSpecificOutput?.permissionDecision, 'deny', `${name}: ${r.stdout} ${r.stderr}`);
        assert.match(out.hookSpecificOutput?.permissionDecisionReason ?? '', b.why, name);
      }
    });
  }

  test('config check says the policy fails closed, and herd list warns on stderr', async () => {
    setPolicy('[governance.permissions]\nshell = "Deny"\n');
    const check = await env.cli(['config', 'check']);
    assert.equal(check.code, 1);
    assert.match(check.stdout, /policy {2}FAILS CLOSED/);
    const herd = await env.cli(['herd', 'list']);
    assert.equal(herd.code, 0, herd.stderr);
    assert.match(herd.stderr, /warning: the policy cannot be used as written.*"Deny" is not a decision/);
    setPolicy('');
    assert.equal((await env.cli(['herd', 'list'])).stderr, '');
  });
});
