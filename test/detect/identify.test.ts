// Which agent runs in a pane: process trees as observed in agent-lab panes (tmux, /proc), reports, launch commands.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { agentOfProcess, builtinSignatures, identify, type ProcInfo } from '../../src/detect/identify.js';

const P = (pid: number, ppid: number, comm: string, ...argv: string[]): ProcInfo => ({ pid, ppid, comm, argv: argv.length ? argv : [comm] });
const LAB = '/root/.cache/agent-lab/installs';
const shell = P(100, 1, 'bash', 'bash', '-c', 'run-agent.sh …');

// Trees read with src/platform/proc.ts from real agent-lab panes (claude 2.1.332, codex 0.171.0, gemini 0.61.0, pi 0.73.1).
const TREES: Record<string, ProcInfo[]> = {
  claude: [shell, P(101, 100, 'claude', `${LAB}/claude/node_modules/.bin/claude`)],
  codex: [shell, P(101, 100, 'node', 'node', `${LAB}/codex/node_modules/.bin/codex`, '--no-daemon'),
    P(102, 101, 'codex', `${LAB}/codex/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex`, '--no-daemon')],
  gemini: [shell, P(101, 100, 'node', 'node', `${LAB}/gemini/node_modules/.bin/gemini`)],
  // pi sets its process title: comm "pi", argv[0] "pi" (the rest of argv is overwritten)
  pi: [shell, P(101, 100, 'pi', 'pi')],
};

for (const [agent, processes] of Object.entries(TREES)) {
  test(`${agent}: found in the pane's process tree`, () => {
    const id = identify({ processes, rootPid: 100, foregroundPid: 100 });
    assert.equal(id.agent, agent);
    assert.equal(id.source, 'process');
  });
}

test('node scripts from a global npm install, npx, and a relaunched child', () => {
  assert.equal(agentOfProcess(P(1, 0, 'node', 'node', '/usr/lib/node_modules/@google/gemini-cli/dist/index.js')), 'gemini');
  assert.equal(agentOfProcess(P(1, 0, 'node', 'node', '--no-warnings', '/home/u/.npm/_npx/1/node_modules/@mariozechner/pi-coding-agent/dist/cli.js')), 'pi');
  assert.equal(agentOfProcess(P(1, 0, 'node', 'node', '/usr/local/lib/node_modules/@anthropic-ai/claude-code/cli.js')), 'claude');
  assert.equal(agentOfProcess(P(1, 0, 'node', '/usr/bin/node', '/home/u/.local/share/cursor-agent/versions/2025.10.02/index.js')), 'cursor');
  assert.equal(agentOfProcess(P(1, 0, 'cursor-agent', '/home/u/.local/bin/cursor-agent')), 'cursor');
  assert.equal(agentOfProcess(P(1, 0, 'opencode', 'opencode')), 'opencode');
  assert.equal(agentOfProcess(P(1, 0, '2.1.332', '/home/u/.local/share/claude/versions/2.1.332')), 'claude', 'native installer, run by its real path');
  assert.equal(agentOfProcess(P(1, 0, 'node', 'node', '/srv/app/server.js')), undefined);
  assert.equal(agentOfProcess(P(1, 0, 'agent', 'agent')), undefined, 'a bare "agent" is not assumed to be Cursor');
  assert.equal(agentOfProcess(P(1, 0, 'vim', 'vim', 'claude.md')), undefined, 'a file named like an agent is not the agent');
});

test('the foreground job decides: an agent in a background job does not count', () => {
  const processes = [P(100, 1, 'zsh'), P(200, 100, 'claude'), P(300, 100, 'vim', 'vim', 'notes.md')];
  assert.equal(identify({ processes, rootPid: 100, foregroundPid: 300 }).agent, undefined);
  assert.equal(identify({ processes, rootPid: 100, foregroundPid: 200 }).agent, 'claude');
});

test('back at the shell prompt: no agent, even if one was reported or launched before', () => {
  const id = identify({ processes: [P(100, 1, 'bash')], rootPid: 100, foregroundPid: 100, reported: 'claude', launchCommand: ['claude'] });
  assert.equal(id.agent, undefined);
  assert.equal(id.source, 'shell');
});

test('an agent castellan does not know by process takes the reported name', () => {
  const processes = [P(100, 1, 'bash'), P(200, 100, 'python3', 'python3', '/opt/my-agent/main.py')];
  const id = identify({ processes, rootPid: 100, foregroundPid: 200, reported: 'my-agent' });
  assert.deepEqual([id.agent, id.source], ['my-agent', 'report']);
  assert.equal(identify({ processes, rootPid: 100, foregroundPid: 200 }).source, 'none');
});

test('without /proc: the report, then the launch command (also inside sh -c)', () => {
  assert.equal(identify({ processes: [], reported: 'gemini', launchCommand: ['codex'] }).agent, 'gemini');
  assert.deepEqual(identify({ processes: [], launchCommand: ['codex', '--no-alt-screen'] }).agent, 'codex');
  assert.equal(identify({ processes: [], launchCommand: ['/bin/sh', '-c', 'claude --resume'] }).agent, 'claude');
  assert.equal(identify({ processes: [], launchCommand: ['npx', '@google/gemini-cli'] }).agent, 'gemini');
  assert.equal(identify({ processes: [], launchCommand: ['bash'] }).source, 'none');
});

test('the nearest match under the foreground wins (wrappers are looked through)', () => {
  const processes = [P(100, 1, 'bash'), P(150, 100, 'npm', 'npm', 'exec', 'something'), P(160, 150, 'sh', 'sh', '-c', 'x'),
    P(170, 160, 'node', 'node', '/home/u/.npm/_npx/9/node_modules/.bin/gemini')];
  const id = identify({ processes, rootPid: 100, foregroundPid: 150 });
  assert.deepEqual([id.agent, id.pid], ['gemini', 170]);
});

// Trees read from real agent-lab panes (tmux, /proc) of opencode 1.18.33, kilo 7.7.7, copilot 1.0.102, qwen-code 0.24.4.
const TREES_29: Record<string, ProcInfo[]> = {
  // the npm bin link execs the Bun binary itself: comm is the link's name
  opencode: [shell, P(101, 100, 'opencode', `${LAB}/opencode/node_modules/.bin/opencode`)],
  // node runs the package's bin/kilo, which spawns the Bun binary bin/.kilo
  kilo: [shell, P(101, 100, 'node', 'node', `${LAB}/kilo/node_modules/.bin/kilo`),
    P(102, 101, '.kilo', `${LAB}/kilo/node_modules/@kilocode/cli/bin/.kilo`)],
  // node runs npm-loader.js, which spawns the platform package's native binary
  copilot: [shell, P(101, 100, 'node', 'node', `${LAB}/copilot/node_modules/.bin/copilot`),
    P(102, 101, 'copilot', `${LAB}/copilot/node_modules/@github/copilot-linux-x64/copilot`)],
  qwen: [shell, P(101, 100, 'node', 'node', `${LAB}/qwen/node_modules/.bin/qwen`)],
};

for (const [agent, processes] of Object.entries(TREES_29)) {
  test(`${agent}: found in the pane's process tree (wrapper and native child alike)`, () => {
    assert.equal(identify({ processes, rootPid: 100, foregroundPid: 100 }).agent, agent);
    for (const p of processes.slice(1)) assert.equal(agentOfProcess(p), agent, p.argv.join(' '));
  });
}

test('the four agents by their other shapes: real paths, npx, global installs, a relaunched child', () => {
  assert.equal(agentOfProcess(P(1, 0, 'opencode.exe', '/usr/lib/node_modules/opencode-ai/bin/opencode.exe')), 'opencode');
  assert.equal(agentOfProcess(P(1, 0, 'opencode', '/home/u/.opencode/bin/opencode')), 'opencode');
  assert.equal(agentOfProcess(P(1, 0, 'node', 'node', '/home/u/.npm/_npx/9/node_modules/@kilocode/cli/bin/kilo')), 'kilo');
  assert.equal(agentOfProcess(P(1, 0, 'npm exec @kiloc', 'npm', 'exec', '@kilocode/cli@7.7.7')), 'kilo');
  assert.equal(agentOfProcess(P(1, 0, 'node', 'node', '/usr/lib/node_modules/@github/copilot/npm-loader.js')), 'copilot');
  assert.equal(agentOfProcess(P(1, 0, 'npx', 'npx', '@github/copilot')), 'copilot');
  assert.equal(agentOfProcess(P(1, 0, 'node', 'node', '--max-old-space-size=8192', '/usr/lib/node_modules/@qwen-code/qwen-code/cli.js')), 'qwen');
  assert.equal(agentOfProcess(P(1, 0, 'node', 'node', '/srv/qwen-notes/index.js')), undefined, 'a directory named like an agent is not the agent');
  assert.equal(agentOfProcess(P(1, 0, 'less', 'less', 'kilo')), undefined, 'an argument to another program is not the agent');
});

test('the signature table is data: every row comes from a rule file', () => {
  const agents = builtinSignatures().map((s) => s.agent).sort();
  assert.deepEqual(agents, ['aider', 'amp', 'claude', 'codex', 'copilot', 'cursor', 'gemini', 'kilo', 'opencode', 'pi', 'qwen']);
  for (const s of builtinSignatures()) assert.match(s.source, /src\/detect\/rules\/[a-z]+\.toml$/, s.agent);
});
