// The MCP tools: the SDK-free call handler always; the real SDK round trip when @modelcontextprotocol/sdk is installed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMcpServer, handleToolCall, loadMcpSdk, MCP_SDK, type McpDeps } from '../../src/hooks/mcp-server.js';
import { toolArgv } from '../../src/hooks/tool-call.js';
import { waitFor } from '../support/wait-for.js';
import { alive, hookToml, makeWorld, readJson, type World } from './helpers.js';

let w: World;
let deps: McpDeps;
before(() => {
  w = makeWorld();
  const pre = join(w.root, 'pre.json');
  w.write(
    'home/.castellan/config.toml',
    [hookToml({ event: 'PreToolUse', command: `cat > ${pre}`, matcher: 'shell|exec' }), '[governance.permissions]\nexec = "allow"\n[governance.plan_verify]\nenabled = true\nhigh_risk_tools = ["shell"]\n'].join('\n'),
  );
  deps = { cwd: w.project, env: { ...w.env }, paths: w.paths, version: 'test', agentId: 'mcp-agent', link: null };
});
after(() => w.cleanup());
const body = (r: { content: Array<{ text: string }> }) => JSON.parse(r.content[0].text);

describe('MCP tool calls (no SDK needed)', () => {
  test('exec with argv runs and returns stdout/stderr/exit code', async () => {
    const r = await handleToolCall('exec', { argv: ['sh', '-c', 'echo out; echo err >&2; exit 2'], agent_id: 'a9' }, deps);
    assert.equal(r.isError, true);
    assert.deepEqual(body(r), { exit_code: 2, stdout: 'out\n', stderr: 'err\n' });
    assert.equal(readJson(join(w.root, 'pre.json')).agent_id, 'a9');
  });

  test('shell without a plan is denied as an error result carrying the reason', async () => {
    const r = await handleToolCall('shell', { command: 'ls' }, deps);
    assert.equal(r.isError, true);
    assert.match(r.content[0].text, /^denied: plan verify: no workflow_plan/);
  });

  test('shell with a plan: plain words run without a shell and match the plan step', async () => {
    const plan = { steps: [{ id: 'list', tool: 'shell', argv: ['ls', '-a', '*'] }] };
    const r = await handleToolCall('shell', { command: 'ls -a .', workflow_plan: plan }, deps);
    assert.equal(r.isError, undefined, r.content[0].text);
    assert.match(body(r).stdout, /\.git/);
    const sneaky = await handleToolCall('shell', { command: 'ls -a .; touch pwned', workflow_plan: plan }, deps);
    assert.match(sneaky.content[0].text, /^denied: plan verify: .*not a step/);
  });

  test('bad arguments are an error result', async () => {
    assert.match((await handleToolCall('exec', {}, deps)).content[0].text, /invalid arguments/);
    assert.match((await handleToolCall('exec', { argv: [] }, deps)).content[0].text, /invalid arguments/);
  });

  test('toolArgv: what is checked is what runs', () => {
    assert.deepEqual(toolArgv({ command: 'git status --short' }), { argv: ['git', 'status', '--short'] });
    assert.deepEqual(toolArgv({ command: 'echo $HOME' }), { argv: ['/bin/sh', '-c', 'echo $HOME'] });
    assert.deepEqual(toolArgv({ command: 'a && b' }), { argv: ['/bin/sh', '-c', 'a && b'] });
    assert.ok('error' in toolArgv({ command: 'x', argv: ['y'] }));
  });
});

describe('MCP over the SDK', async () => {
  const sdk = await loadMcpSdk();
  const skip = 'missing' in sdk ? `${MCP_SDK} is not installed` : false;

  test('lists shell and exec and calls them through the pipeline', { skip }, async () => {
    if ('missing' in sdk) return;
    const client = await import(`${MCP_SDK}/client/index.js` as string);
    const mem = await import(`${MCP_SDK}/inMemory.js` as string);
    const [clientSide, serverSide] = mem.InMemoryTransport.createLinkedPair();
    const server = createMcpServer(sdk, deps);
    await server.connect(serverSide);
    const c = new client.Client({ name: 'test', version: '1' });
    await c.connect(clientSide);
    try {
      const { tools } = await c.listTools();
      assert.deepEqual(tools.map((t: { name: string }) => t.name).sort(), ['exec', 'shell']);
      const shell = tools.find((t: { name: string }) => t.name === 'shell');
      assert.ok(shell.inputSchema.properties.command && shell.inputSchema.properties.workflow_plan);
      const ok = await c.callTool({ name: 'exec', arguments: { argv: ['sh', '-c', 'echo hi'] } });
      assert.equal(ok.isError, undefined);
      assert.equal(JSON.parse(ok.content[0].text).stdout, 'hi\n');
      const denied = await c.callTool({ name: 'shell', arguments: { command: 'echo hi' } });
      assert.equal(denied.isError, true);
      assert.match(denied.content[0].text, /^denied: plan verify/);
    } finally {
      await c.close();
      await server.close();
    }
  });

  test('castellan mcp over stdio: a real process, ends when the client closes', { skip }, async () => {
    const client = await import(`${MCP_SDK}/client/index.js` as string);
    const stdio = await import(`${MCP_SDK}/client/stdio.js` as string);
    const entry = fileURLToPath(new URL('./fixtures/cli-entry.ts', import.meta.url));
    const transport = new stdio.StdioClientTransport({ command: process.execPath, args: ['--import', import.meta.resolve('tsx'), entry, 'mcp'], cwd: w.project, env: deps.env as Record<string, string>, stderr: 'pipe' });
    const c = new client.Client({ name: 'test', version: '1' });
    await c.connect(transport);
    const pid: number = transport.pid;
    try {
      const r = await c.callTool({ name: 'exec', arguments: { argv: ['sh', '-c', 'echo via-stdio'] } });
      assert.equal(JSON.parse(r.content[0].text).stdout, 'via-stdio\n');
    } finally {
      await c.close();
    }
    await waitFor(() => !alive(pid), { timeoutMs: 5000, message: 'castellan mcp exits when stdin closes' });
  });
});
