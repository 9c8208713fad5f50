// `castellan mcp`: an MCP server (stdio) offering governed `shell` and `exec` tools; every call goes through the pipeline.
import type { Paths } from '../platform/paths.js';
import type { ServerLink } from './emit.js';
import { governPostToolUse, governPreToolUse } from './pipeline.js';
import { runCaptured } from './run.js';
import { toolArgsSchema, toolArgv } from './tool-call.js';

/** The SDK is loaded at run time (its module names are not static imports), so castellan builds and runs without it. */
export const MCP_SDK = '@modelcontextprotocol/sdk';
const SDK_SERVER = `${MCP_SDK}/server/mcp.js`;
const SDK_STDIO = `${MCP_SDK}/server/stdio.js`;

export const MCP_TOOLS = ['shell', 'exec'] as const;
const DEFAULT_TOOL_TIMEOUT_MS = 10 * 60_000;
const MAX_TOOL_OUTPUT = 1024 * 1024;

export interface McpDeps {
  cwd: string;
  env: NodeJS.ProcessEnv;
  paths: Paths;
  version: string;
  /** Default agent id for calls that do not give `agent_id`. */
  agentId?: string;
  /** A long-lived link for events and prompts (one connection for the server's life). */
  link?: ServerLink | null;
}

/** The MCP tool result shape (CallToolResult) this server produces. */
export interface ToolResult {
  content: Array<{ type: 'text'; text: string }>;
  isError?: boolean;
  [k: string]: unknown;
}

const text = (t: string, isError = false): ToolResult => ({ content: [{ type: 'text', text: t }], ...(isError ? { isError: true } : {}) });

/**
 * One tool call, SDK-free (so it is testable without the SDK): validate the args, govern, run with a
 * deadline and capped output, run PostToolUse, and shape the MCP result. A denial is an error result.
 */
export async function handleToolCall(tool: string, rawArgs: unknown, deps: McpDeps): Promise<ToolResult> {
  const parsed = toolArgsSchema.safeParse(rawArgs ?? {});
  if (!parsed.success) return text(`invalid arguments: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'args'}: ${i.message}`).join('; ')}`, true);
  const args = parsed.data;
  const call = toolArgv(args);
  if ('error' in call) return text(`invalid arguments: ${call.error}`, true);
  const agentId = args.agent_id ?? deps.agentId ?? (deps.env.CASTELLAN_AGENT_ID || undefined);
  const paneId = deps.env.CASTELLAN_PANE_ID || undefined;
  const opts = { env: deps.env, paths: deps.paths, ...(deps.link !== undefined ? { link: deps.link } : {}) };
  const pre = await governPreToolUse({ tool, argv: call.argv, agentId, paneId, cwd: deps.cwd, toolInput: args }, opts);
  if (pre.decision !== 'allow') return text(`denied: ${pre.reason ?? 'not allowed by castellan governance'}`, true);

  const r = await runCaptured({
    file: call.argv[0],
    args: call.argv.slice(1),
    cwd: deps.cwd,
    env: Object.fromEntries(Object.entries(deps.env).filter((e): e is [string, string] => e[1] !== undefined)),
    timeoutMs: args.timeout_ms ?? DEFAULT_TOOL_TIMEOUT_MS,
    maxOutput: MAX_TOOL_OUTPUT,
  });
  const exitCode = r.spawnError ? 127 : r.exitCode ?? 128;
  const post = await governPostToolUse({ tool, argv: call.argv, success: exitCode === 0 && !r.timedOut, exitCode, agentId, paneId, cwd: deps.cwd }, opts);
  const body = {
    exit_code: exitCode,
    stdout: r.stdout,
    stderr: r.spawnError ? `${r.stderr}${r.spawnError}` : r.stderr,
    ...(r.signal ? { signal: r.signal } : {}),
    ...(r.timedOut ? { timed_out: true } : {}),
    ...(r.truncated ? { truncated: true } : {}),
    ...(post.ok ? {} : { post_tool_use_failed: post.reason }),
  };
  return text(JSON.stringify(body), exitCode !== 0 || r.timedOut || !post.ok);
}

/** Loads the SDK, or says how to get it. */
export async function loadMcpSdk(): Promise<{ McpServer: new (...a: unknown[]) => McpServerLike; StdioServerTransport: new () => unknown } | { missing: string }> {
  try {
    const [mcp, stdio] = await Promise.all([import(SDK_SERVER as string), import(SDK_STDIO as string)]);
    return { McpServer: mcp.McpServer, StdioServerTransport: stdio.StdioServerTransport };
  } catch (e) {
    return { missing: `castellan mcp needs the MCP SDK (${MCP_SDK}); it could not be loaded: ${(e as Error).message.split('\n')[0]}` };
  }
}

/** The part of the SDK's McpServer we use (registerTool + connect + close). */
export interface McpServerLike {
  registerTool(name: string, config: { title?: string; description?: string; inputSchema?: unknown }, cb: (args: unknown) => Promise<ToolResult>): unknown;
  connect(transport: unknown): Promise<void>;
  close(): Promise<void>;
}

const DESCRIPTION: Record<(typeof MCP_TOOLS)[number], string> = {
  shell:
    'Run a shell command under castellan governance (permission policy, PreToolUse/PostToolUse hooks, plan verify). Give `command` (a string; plain words run without a shell, anything else as /bin/sh -c COMMAND) or `argv`. When plan verification is on, include `workflow_plan` ({steps: [{id, tool, argv: [patterns]}], step?}). Returns JSON {exit_code, stdout, stderr}; a denial is an error result with the reason.',
  exec:
    'Run a program (argv, no shell) under castellan governance (permission policy, hooks, plan verify). Give `argv` (or `command`). When plan verification is on, include `workflow_plan`. Returns JSON {exit_code, stdout, stderr}; a denial is an error result with the reason.',
};

/** Builds an McpServer (from the SDK's constructor) with the governed tools registered. */
export function createMcpServer(sdk: { McpServer: new (...a: unknown[]) => McpServerLike }, deps: McpDeps): McpServerLike {
  const server = new sdk.McpServer({ name: 'castellan', version: deps.version }, { capabilities: { tools: {} } });
  for (const tool of MCP_TOOLS) {
    server.registerTool(tool, { title: `castellan ${tool}`, description: DESCRIPTION[tool], inputSchema: toolArgsSchema.shape }, (args) => handleToolCall(tool, args, deps));
  }
  return server;
}

/** Serves MCP on stdin/stdout until the client goes away. */
export async function runMcpStdio(deps: McpDeps): Promise<{ error?: string }> {
  const sdk = await loadMcpSdk();
  if ('missing' in sdk) return { error: sdk.missing };
  const server = createMcpServer(sdk, deps);
  const transport = new sdk.StdioServerTransport() as { onclose?: () => void };
  const closed = new Promise<void>((resolve) => {
    const prev = transport.onclose;
    transport.onclose = () => {
      prev?.();
      resolve();
    };
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  await closed;
  await server.close().catch(() => undefined);
  return {};
}
