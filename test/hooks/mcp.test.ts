// The MCP tools: the call handler, and castellan's own MCP server driven by the official SDK client (a devDependency) for compatibility.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { serveJsonRpc } from '../../src/hooks/mcp-rpc.js';
import { createMcpHandler, handleToolCall, MCP_PROTOCOL_VERSIONS, type McpDeps } from '../../src/hooks/mcp-server.js';
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

const MCP_SDK = '@modelcontextprotocol/sdk';

/** An SDK client transport over two in-process streams, served by castellan's JSON-RPC loop. */
function linkedTransport(d: McpDeps) {
  const toServer = new PassThrough();
  const toClient = new PassThrough();
  const served = serveJsonRpc(toServer, toClient, createMcpHandler(d));
  let buf = '';
  const transport = {
    onmessage: undefined as ((m: unknown) => void) | undefined,
    onclose: undefined as (() => void) | undefined,
    onerror: undefined as ((e: Error) => void) | undefined,
    async start() {
      toClient.on('data', (c: Buffer) => {
        buf += c.toString('utf8');
        for (let i = buf.indexOf('\n'); i !== -1; i = buf.indexOf('\n')) {
          const line = buf.slice(0, i);
          buf = buf.slice(i + 1);
          transport.onmessage?.(JSON.parse(line));
        }
      });
    },
    async send(m: unknown) {
      toServer.write(JSON.stringify(m) + '\n');
    },
    async close() {
      toServer.end();
      transport.onclose?.();
    },
  };
  return { transport, served };
}

describe('castellan\'s MCP server with the official SDK client', async () => {
  test('lists shell and exec and calls them through the pipeline', async () => {
    const client = await import(`${MCP_SDK}/client/index.js` as string);
    const { transport, served } = linkedTransport(deps);
    const c = new client.Client({ name: 'test', version: '1' });
    await c.connect(transport);
    try {
      assert.equal(c.getServerVersion()?.name, 'castellan');
      assert.ok(c.getServerCapabilities()?.tools);
      const { tools } = await c.listTools();
      assert.deepEqual(tools.map((t: { name: string }) => t.name).sort(), ['exec', 'shell']);
      const shell = tools.find((t: { name: string }) => t.name === 'shell');
      assert.ok(shell.inputSchema.properties.command && shell.inputSchema.properties.workflow_plan);
      assert.equal(shell.inputSchema.type, 'object');
      const ok = await c.callTool({ name: 'exec', arguments: { argv: ['sh', '-c', 'echo hi'] } });
      assert.equal(ok.isError, undefined);
      assert.equal(JSON.parse(ok.content[0].text).stdout, 'hi\n');
      const denied = await c.callTool({ name: 'shell', arguments: { command: 'echo hi' } });
      assert.equal(denied.isError, true);
      assert.match(denied.content[0].text, /^denied: plan verify/);
      await c.ping();
      await assert.rejects(c.callTool({ name: 'rm', arguments: {} }), /unknown tool/);
    } finally {
      await c.close();
    }
    await served;
  });

  test('hostile input: garbage, batches, huge lines, unknown methods and notifications get errors or nothing, and the server keeps serving', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const served = serveJsonRpc(input, output, createMcpHandler(deps), 4096);
    let out = '';
    output.on('data', (c: Buffer) => (out += c.toString('utf8')));
    const lines = [
      'not json',
      '[{"jsonrpc":"2.0","id":1,"method":"ping"}]',
      '{"jsonrpc":"1.0","id":2,"method":"ping"}',
      '{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}',
      '{"jsonrpc":"2.0","id":3,"method":"resources/list"}',
      '{"jsonrpc":"2.0","method":"tools/call","params":{"name":"exec","arguments":{"argv":["touch","' + join(w.root, 'notified') + '"]}}}',
      '{"jsonrpc":"2.0","id":4,"result":{}}',
      '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"exec","arguments":{"argv":[]}}}',
      '"x'.padEnd(10_000, 'x') + '"',
      '{"jsonrpc":"2.0","id":6,"method":"initialize","params":{"protocolVersion":"1999-01-01"}}',
      '{"jsonrpc":"2.0","id":7,"method":"ping"}',
    ];
    input.end(lines.join('\n') + '\n');
    await served;
    await waitFor(() => out.includes('"id":7'), { timeoutMs: 5000, message: 'the last ping answered' });
    const replies = out.trim().split('\n').map((l) => JSON.parse(l));
    const byId = (id: unknown) => replies.find((r) => r.id === id);
    assert.equal(replies.filter((r) => r.error?.code === -32700).length, 1, 'one parse error');
    assert.equal(replies.filter((r) => r.id === null && r.error?.code === -32600).length, 3, 'batch, bad id, line too long');
    assert.equal(byId(2).error.code, -32600, 'jsonrpc 1.0');
    assert.equal(byId(3).error.code, -32601);
    assert.equal(byId(4), undefined, 'a response from the client is not answered');
    assert.equal(byId(5).result.isError, true);
    assert.equal(byId(6).result.protocolVersion, MCP_PROTOCOL_VERSIONS[0]);
    assert.deepEqual(byId(7).result, {});
    assert.equal(replies.length, 9);
    assert.ok(!(await import('node:fs')).existsSync(join(w.root, 'notified')), 'a tools/call without an id ran nothing');
  });

  test('castellan mcp over stdio: a real process, ends when the client closes', async () => {
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
