// The agents an agent definition and `[agents] default` may name: the first four and opencode, Kilo, Copilot CLI, Qwen Code; nothing else.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { guessKind, parseAgentFile } from '../../src/config/agents.js';
import { parseConfigText } from '../../src/config/load.js';

const NEW = ['opencode', 'kilo', 'copilot', 'qwen'] as const;

test('[agents] default accepts the four new agents and still refuses any other name, keeping the last good value', () => {
  for (const a of NEW) {
    const { value, diagnostics } = parseConfigText(`[agents]\ndefault = "${a}"\n`, 'c.toml');
    assert.deepEqual(diagnostics, [], a);
    assert.equal(value.agents?.default, a);
  }
  for (const bad of ['crush', 'Opencode', 'kilocode', 'qwen-code', 'opencode; rm -rf ~', '', 'copilot\n']) {
    const { value, diagnostics } = parseConfigText(`[agents]\ndefault = ${JSON.stringify(bad)}\n`, 'c.toml');
    assert.equal(diagnostics.length, 1, JSON.stringify(bad));
    assert.equal(diagnostics[0].severity, 'error');
    assert.equal(value.agents?.default, undefined, JSON.stringify(bad));
  }
});

test('a definition may name a new agent with `agent:`, and a command line starting one is guessed as it', () => {
  for (const a of NEW) {
    const r = parseAgentFile(`---\nname: rev-${a}\nagent: ${a}\n---\nReview.\n`, '/p/.castellan/agents/a.md', 'project');
    assert.deepEqual(r.diagnostics, [], a);
    assert.equal(r.agent?.kind, a);
    assert.equal(r.agent?.command, a, 'the program is the agent, by name');
  }
  assert.equal(guessKind('/work/shared/agent-lab/run-agent.sh --hooks qwen'), 'qwen');
  assert.equal(guessKind('env X=1 /opt/bin/opencode --model mock/mock-model'), 'opencode');
  assert.equal(guessKind('kilo --auto'), 'kilo');
  assert.equal(guessKind('copilot --allow-all-tools'), 'copilot');
  assert.equal(guessKind('crush'), 'other');
  const bad = parseAgentFile('---\nname: x\nagent: crush\n---\n', '/p/.castellan/agents/a.md', 'project');
  assert.equal(bad.agent, undefined);
  assert.match(bad.diagnostics[0]?.message ?? "", /expected one of .*"qwen"/);
});
