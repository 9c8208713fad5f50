// Agent definition files: frontmatter parsing, validation diagnostics (file + field), trust of project definitions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { guessKind, loadAgents, parseAgentFile } from '../../src/config/agents.js';
import { readTrust, trustFile } from '../../src/config/trust.js';

const GOOD = `---
name: my-agent
description: My custom agent
command: claude --permission-mode manual
hooks:
  SubagentStart:
    - command: "echo 'Agent started: {{agentType}}'"
      type: "command"
  UserPromptSubmit:
    - command: "node .castellan/hooks/validate-input.js"
      type: "command"
  SubagentStop:
    - pattern: "edit"
      type: "deny"
      reason: "My agent cannot edit files"
  PostSampling:
    - command: "./log-response.sh"
      type: "command"
---
You are my agent.

Be brief.
`;

const parse = (text: string) => parseAgentFile(text, '/p/.castellan/agents/a.md', 'project');

test('a good definition: fields, hooks, body as instructions, kind from the command', () => {
  const r = parse(GOOD);
  assert.deepEqual(r.diagnostics, []);
  const a = r.agent!;
  assert.equal(a.name, 'my-agent');
  assert.equal(a.description, 'My custom agent');
  assert.equal(a.command, 'claude --permission-mode manual');
  assert.equal(a.kind, 'claude');
  assert.equal(a.body, 'You are my agent.\n\nBe brief.');
  assert.equal(a.hooksValid, true);
  assert.equal(a.hooks.SubagentStart?.[0].command, "echo 'Agent started: {{agentType}}'");
  assert.deepEqual(a.hooks.SubagentStop?.[0], { type: 'deny', pattern: 'edit', reason: 'My agent cannot edit files' });
  assert.equal(a.hooks.PostSampling?.length, 1);
  assert.match(a.sha256, /^[0-9a-f]{64}$/);
});

test('the kind: an explicit `agent` field, else the first agent word of the command', () => {
  assert.equal(guessKind('/work/shared/agent-lab/run-agent.sh --scratch /tmp/x claude --permission-mode manual'), 'claude');
  assert.equal(guessKind('env FOO=1 /usr/local/bin/codex --no-daemon'), 'codex');
  assert.equal(guessKind('sh ./fake-agent.sh'), 'other');
  assert.equal(parse('---\nname: x\ncommand: sh fake.sh\nagent: gemini\n---\n').agent!.kind, 'gemini');
});

test('no frontmatter, bad YAML, an empty command, `agent: other` without one, bad name: one diagnostic each, no agent', () => {
  const cases: Array<[string, RegExp, string | undefined]> = [
    ['just text\n', /no YAML frontmatter/, undefined],
    ['---\nname: x\ncommand: [unclosed\n---\n', /not valid YAML/, undefined],
    ['---\nname: x\nagent: other\n---\nbody\n', /names no program/, 'command'],
    ['---\nname: "bad name!"\ncommand: sh\n---\n', /letters, digits/, 'name'],
    ['---\nname: x\ncommand: "   "\n---\n', /the command is empty/, 'command'],
  ];
  for (const [text, msg, path] of cases) {
    const r = parse(text);
    assert.equal(r.agent, undefined, text);
    assert.equal(r.diagnostics.length, 1, `${text}: ${JSON.stringify(r.diagnostics)}`);
    const d = r.diagnostics[0];
    assert.equal(d.file, '/p/.castellan/agents/a.md');
    assert.equal(d.severity, 'error');
    assert.match(d.message, msg);
    assert.equal(d.path, path);
  }
});

test('an invalid hooks block: one diagnostic naming file and field; hooks skipped, the agent still launches', () => {
  const bad: Array<[string, string, RegExp]> = [
    ['  Startup:\n    - type: command\n      command: echo hi\n', 'hooks.Startup', /unknown hook type/],
    ['  SubagentStop:\n    - type: block\n      pattern: Bash\n', 'hooks.SubagentStop[0].type', /./],
    ['  SubagentStart:\n    - type: command\n', 'hooks.SubagentStart[0].command', /needs a command/],
    ['  SubagentStop:\n    - type: deny\n      pattern: "(unclosed"\n', 'hooks.SubagentStop[0].pattern', /regular expression/],
    ['  PostSampling:\n    - type: deny\n', 'hooks.PostSampling[0].type', /apply to SubagentStop/],
    ['  SubagentStop:\n    - type: deny\n      patern: Bash\n', 'hooks.SubagentStop[0].patern', /unknown field/],
    ['  SubagentStop: "deny everything"\n', 'hooks.SubagentStop', /./],
  ];
  for (const [hooks, path, msg] of bad) {
    const r = parse(`---\nname: x\ncommand: sh fake.sh\nhooks:\n${hooks}---\nDo things.\n`);
    assert.ok(r.agent, hooks);
    assert.equal(r.agent!.hooksValid, false);
    assert.deepEqual(r.agent!.hooks, {});
    assert.equal(r.agent!.body, 'Do things.');
    assert.equal(r.diagnostics.length, 1, `${hooks}: ${JSON.stringify(r.diagnostics)}`);
    assert.equal(r.diagnostics[0].path, path, hooks);
    assert.match(r.diagnostics[0].message, msg);
    assert.match(r.diagnostics[0].message, /the agent does not start until its hooks parse/);
    assert.equal(typeof r.diagnostics[0].line, 'number', `${hooks}: a line number`);
  }
});

test('project definitions start only while trusted with this content; user ones always; the project wins a name clash', () => {
  const root = mkdtempSync(join(tmpdir(), 'cagents-'));
  try {
    const home = join(root, 'home');
    const proj = join(root, 'proj');
    mkdirSync(join(proj, '.git'), { recursive: true });
    mkdirSync(join(proj, '.castellan', 'agents'), { recursive: true });
    mkdirSync(join(home, '.castellan', 'agents'), { recursive: true });
    const pfile = join(proj, '.castellan', 'agents', 'p.md');
    writeFileSync(pfile, '---\nname: shared\ndescription: project one\ncommand: sh p.sh\n---\n');
    writeFileSync(join(home, '.castellan', 'agents', 'u.md'), '---\nname: mine\ncommand: sh u.sh\n---\n');
    writeFileSync(join(home, '.castellan', 'agents', 'v.md'), '---\nname: shared\ncommand: sh v.sh\n---\n');
    writeFileSync(join(home, '.castellan', 'agents', 'notes.txt'), 'not a definition');
    const store = join(root, 'trust.json');
    const load = (cwd = proj) => loadAgents({ cwd, home, trust: readTrust(store).data });

    let r = load();
    assert.deepEqual(r.agents.map((a) => [a.name, a.source, a.trust, a.startable]), [['shared', 'project', 'untrusted', false], ['mine', 'user', 'user', true]]);
    assert.match(r.agents[0].reason!, /not trusted; run `castellan trust`/);
    assert.match(r.diagnostics.find((d) => d.severity === 'warning')!.message, /already defined/);

    trustFile(store, pfile);
    r = load();
    assert.equal(r.agents[0].startable, true);
    assert.equal(r.agents[0].trust, 'trusted');

    writeFileSync(pfile, '---\nname: shared\ndescription: edited\ncommand: sh p.sh\n---\n');
    r = load();
    assert.equal(r.agents[0].trust, 'changed');
    assert.match(r.agents[0].reason!, /changed since it was trusted/);

    // From HOME itself (no project), ~/.castellan/agents is the user layer only, never a "project" needing trust.
    r = load(home);
    assert.deepEqual(r.agents.map((a) => [a.name, a.source]), [['mine', 'user'], ['shared', 'user']]);

    // A deny hook that does not parse (a typo in its pattern) fails closed: the agent is listed, and does not start.
    writeFileSync(join(home, '.castellan', 'agents', 'u.md'), '---\nname: mine\ncommand: sh u.sh\nhooks:\n  SubagentStop:\n    - type: deny\n      pattern: "(unclosed"\n---\n');
    r = load(home);
    const mine = r.agents.find((a) => a.name === 'mine')!;
    assert.equal(mine.startable, false);
    assert.match(mine.reason!, /its hooks do not parse, and castellan does not start an agent without the hooks written for it/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
