// Running per-agent hooks: shell-quoted placeholders, the stdout protocol, deny patterns, failures as warnings.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentHookEntry } from '../../src/config/agents.js';
import { fillPlaceholders, parseHookStdout, runAgentHooks, type AgentHookRunEvent } from '../../src/hooks/agent-hooks.js';
import { render } from '../../src/hooks/inject.js';

const dir = mkdtempSync(join(tmpdir(), 'cah-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const subject = { agentId: 'my-agent-3f2a', agentType: 'my-agent', paneId: 'w1:p2', cwd: dir };

function collect() {
  const events: AgentHookRunEvent[] = [];
  const warnings: string[] = [];
  return { events, warnings, opts: { env: { PATH: process.env.PATH, HOME: dir, SECRET_TOKEN: 'x' }, emit: (e: AgentHookRunEvent) => events.push(e), warn: (w: string) => warnings.push(w) } };
}

test('placeholders are filled shell-quoted for where they stand', () => {
  const v = { agentId: "it's $(id) `x` \"q\" \\", agentType: 'my agent', paneId: 'w1:p2' };
  const cmds = [`printf '%s|' {{agentId}} "{{agentId}}" 'x{{agentId}}y' {{ agentType }} {{paneId}}`];
  for (const c of cmds) {
    const filled = fillPlaceholders(c, v);
    const out = execFileSync('/bin/sh', ['-c', filled], { encoding: 'utf8' });
    assert.equal(out, `${v.agentId}|${v.agentId}|x${v.agentId}y|my agent|w1:p2|`);
  }
  assert.equal(fillPlaceholders("echo 'Agent started: {{agentType}}'", { agentId: 'a', agentType: 'my-agent' }), "echo 'Agent started: my-agent'");
  assert.equal(fillPlaceholders('echo {{nope}}', { agentId: 'a', agentType: 'b' }), 'echo {{nope}}');
});

test('the stdout protocol: JSON decision / prompt / context, else plain text is context', () => {
  assert.deepEqual(parseHookStdout('{"decision":"block","reason":"no"}'), { deny: 'no' });
  assert.deepEqual(parseHookStdout('{"decision":"deny"}'), { deny: '' });
  assert.deepEqual(parseHookStdout('{"prompt":"new text"}'), { prompt: 'new text' });
  assert.deepEqual(parseHookStdout('{"context":"c","strength":"strong"}'), { context: 'c', strength: 'strong' });
  assert.deepEqual(parseHookStdout('{"hookSpecificOutput":{"additionalContext":"c2"}}'), { context: 'c2' });
  assert.deepEqual(parseHookStdout('  hello\n'), { context: 'hello' });
  assert.deepEqual(parseHookStdout('{not json'), { context: '{not json' });
  assert.deepEqual(parseHookStdout(''), {});
});

test('SubagentStart: output becomes ambient context; the command sees its agent, input JSON and a controlled env', async () => {
  const c = collect();
  const entries: AgentHookEntry[] = [
    { type: 'command', command: "echo 'Agent started: {{agentType}}'" },
    { type: 'command', command: `cat > ${join(dir, 'stdin.json')}; env > ${join(dir, 'env.txt')}` },
    { type: 'prompt', prompt: 'static text' },
  ];
  const r = await runAgentHooks(entries, 'SubagentStart', subject, {}, c.opts);
  assert.equal(r.decision, 'allow');
  assert.deepEqual(r.contexts.map(render), [
    '<ambient source="castellan:agent:my-agent:SubagentStart">\nAgent started: my-agent\n</ambient>',
    '<ambient source="castellan:agent:my-agent:SubagentStart">\nstatic text\n</ambient>',
  ]);
  const input = JSON.parse(readFileSync(join(dir, 'stdin.json'), 'utf8'));
  assert.equal(input.event, 'SubagentStart');
  assert.equal(input.agent_id, 'my-agent-3f2a');
  const env = readFileSync(join(dir, 'env.txt'), 'utf8');
  assert.match(env, /^CASTELLAN_AGENT_ID=my-agent-3f2a$/m);
  assert.match(env, /^CASTELLAN_AGENT_TYPE=my-agent$/m);
  assert.match(env, /^CASTELLAN_HOOK_EVENT=SubagentStart$/m);
  assert.doesNotMatch(env, /SECRET_TOKEN/, 'only an allow-list of castellan\'s environment reaches hooks');
  assert.equal(c.events.length, 2);
});

test('SubagentStop: a deny entry matches the tool name case-insensitively, as a |-list, or castellan\'s mapped name', async () => {
  const deny = (pattern: string): AgentHookEntry[] => [{ type: 'deny', pattern, reason: 'My agent cannot edit files' }];
  const call = (tool_name: string, tool: string) => ({ tool_name, tool, argv: [], tool_input: {} });
  const c = collect();
  assert.equal((await runAgentHooks(deny('edit'), 'SubagentStop', subject, call('Edit', 'edit'), c.opts)).decision, 'deny');
  assert.equal((await runAgentHooks(deny('edit'), 'SubagentStop', subject, call('Bash', 'shell'), c.opts)).decision, 'allow');
  assert.equal((await runAgentHooks(deny('Write|EDIT'), 'SubagentStop', subject, call('Edit', 'edit'), c.opts)).decision, 'deny');
  assert.equal((await runAgentHooks(deny('shell'), 'SubagentStop', subject, call('run_shell_command', 'shell'), c.opts)).decision, 'deny');
  assert.equal((await runAgentHooks(deny('Mcp__.*'), 'SubagentStop', subject, call('mcp__github__list', 'mcp__github__list'), c.opts)).decision, 'deny');
  assert.equal((await runAgentHooks(deny('ed'), 'SubagentStop', subject, call('Edit', 'edit'), c.opts)).decision, 'allow', 'tool patterns match whole names');
  const r = await runAgentHooks([{ type: 'deny' }], 'SubagentStop', subject, call('Bash', 'shell'), c.opts);
  assert.deepEqual([r.decision, r.reason], ['deny', 'my-agent may not use Bash']);
  assert.equal((await runAgentHooks(deny('edit'), 'SubagentStop', subject, call('Edit', 'edit'), c.opts)).reason, 'My agent cannot edit files');
});

test('SubagentStop: a command denies with exit 2 (stderr is the reason) or JSON; allowed output is advice', async () => {
  const c = collect();
  const call = { tool_name: 'Bash', tool: 'shell', argv: ['/bin/sh', '-c', 'rm -rf x'], tool_input: { command: 'rm -rf x' } };
  const exit2 = await runAgentHooks([{ type: 'command', command: 'grep -q rm && { echo "no rm here" >&2; exit 2; }; exit 0' }], 'SubagentStop', subject, call, c.opts);
  assert.deepEqual([exit2.decision, exit2.reason], ['deny', 'no rm here']);
  const json = await runAgentHooks([{ type: 'command', command: `echo '{"decision":"deny","reason":"json says no"}'` }, { type: 'command', command: 'touch never-runs' }], 'SubagentStop', subject, call, c.opts);
  assert.deepEqual([json.decision, json.reason, json.ran], ['deny', 'json says no', 1]);
  const advice = await runAgentHooks([{ type: 'command', command: 'echo "prefer rg over grep"' }], 'SubagentStop', subject, call, c.opts);
  assert.equal(advice.decision, 'allow');
  assert.equal(render(advice.contexts[0]), '<advisory source="castellan:agent:my-agent:SubagentStop" strength="weak">\nprefer rg over grep\n</advisory>');
});

test('UserPromptSubmit: block, rewrite (later hooks see the new prompt), context; a deny entry matches the prompt text', async () => {
  const c = collect();
  const blocked = await runAgentHooks([{ type: 'command', command: `echo '{"decision":"block","reason":"no secrets in prompts"}'` }], 'UserPromptSubmit', subject, { prompt: 'my key is sk-1' }, c.opts);
  assert.deepEqual([blocked.decision, blocked.reason], ['deny', 'no secrets in prompts']);
  const rw = await runAgentHooks(
    [
      { type: 'command', command: `echo '{"prompt":"please be careful: fix it"}'` },
      { type: 'command', command: `sed -n 's/.*"prompt":"\\([^"]*\\)".*/seen: \\1/p'` },
    ],
    'UserPromptSubmit',
    subject,
    { prompt: 'fix it' },
    c.opts,
  );
  assert.equal(rw.decision, 'allow');
  assert.equal(rw.prompt, 'please be careful: fix it');
  assert.equal(rw.contexts[0].text, 'seen: please be careful: fix it');
  assert.equal(rw.contexts[0].kind, 'ambient');
  const d = await runAgentHooks([{ type: 'deny', pattern: 'DROP TABLE', reason: 'no SQL' }], 'UserPromptSubmit', subject, { prompt: 'please drop table users' }, c.opts);
  assert.deepEqual([d.decision, d.reason], ['deny', 'no SQL']);
});

test('PostSampling: advice is advisory, weak unless the hook says strong', async () => {
  const c = collect();
  const r = await runAgentHooks(
    [{ type: 'command', command: 'echo "double-check the tests"' }, { type: 'command', command: `echo '{"context":"stop and ask","strength":"strong"}'` }],
    'PostSampling',
    subject,
    { message: 'Done.' },
    c.opts,
  );
  assert.deepEqual(r.contexts.map((x) => (x.kind === 'advisory' ? x.strength : x.kind)), ['weak', 'strong']);
});

test('a failing, timing-out or missing hook command is a warning and is skipped; the rest still run', async () => {
  const c = collect();
  const script = join(dir, 'slow.sh');
  writeFileSync(script, '#!/bin/sh\nsleep 30\n');
  chmodSync(script, 0o755);
  const r = await runAgentHooks(
    [
      { type: 'command', command: 'echo broken >&2; exit 1' },
      { type: 'command', command: script, timeout_ms: 200 },
      { type: 'command', command: '/nonexistent/hook' },
      { type: 'command', command: 'echo still here' },
    ],
    'SubagentStart',
    subject,
    {},
    c.opts,
  );
  assert.equal(r.decision, 'allow');
  assert.equal(r.failed, 3);
  assert.deepEqual(r.contexts.map((x) => x.text), ['still here']);
  assert.deepEqual(c.events.map((e) => e.outcome), ['failed', 'timeout', 'failed', 'ok']);
  assert.match(c.warnings[0], /exited with code 1: broken; ignored/);
  assert.match(c.warnings[1], /timed out after 200 ms/);
  // exit 2 means "deny" only where a hook can deny; at SubagentStart it is just a failure.
  const r2 = await runAgentHooks([{ type: 'command', command: 'exit 2' }], 'SubagentStart', subject, {}, c.opts);
  assert.deepEqual([r2.decision, r2.failed], ['allow', 1]);
});
