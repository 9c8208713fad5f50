// `castellan mcp`: an MCP server (stdio) offering governed `shell` and `exec` tools; every call goes through the pipeline.
// The JSON-RPC framing is mcp-rpc.ts; this file is the MCP methods (initialize, tools/list, tools/call, ping).
import type { Paths } from '../platform/paths.js';
import type { ServerLink } from './emit.js';
import { z } from 'zod';
import { RPC, RpcFault, serveJsonRpc, type RpcHandler } from './mcp-rpc.js';
import { governPostToolUse, governPreToolUse } from './pipeline.js';
import { runCaptured } from './run.js';
import { toolArgsSchema, toolArgv } from './tool-call.js';

/** MCP revisions this server speaks (newest first); a client asking for another one is offered the newest. */
export const MCP_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;

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

const DESCRIPTION: Record<(typeof MCP_TOOLS)[number], string> = {
  shell:
    'Run a shell command under castellan governance (permission policy, PreToolUse/PostToolUse hooks, plan verify). Give `command` (a string; plain words run without a shell, anything else as /bin/sh -c COMMAND) or `argv`. When plan verification is on, include `workflow_plan` ({steps: [{id, tool, argv: [patterns]}], step?}). Returns JSON {exit_code, stdout, stderr}; a denial is an error result with the reason.',
  exec:
    'Run a program (argv, no shell) under castellan governance (permission policy, hooks, plan verify). Give `argv` (or `command`). When plan verification is on, include `workflow_plan`. Returns JSON {exit_code, stdout, stderr}; a denial is an error result with the reason.',
};

/** The tools as tools/list describes them: the arguments' JSON Schema comes from the same zod schema that checks them. */
export function mcpTools(): Array<{ name: string; title: string; description: string; inputSchema: Record<string, unknown> }> {
  const { $schema: _drop, ...inputSchema } = z.toJSONSchema(toolArgsSchema) as Record<string, unknown>;
  return MCP_TOOLS.map((name) => ({ name, title: `castellan ${name}`, description: DESCRIPTION[name], inputSchema }));
}

const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/** The MCP methods, as a JSON-RPC handler (tests call it directly). */
export function createMcpHandler(deps: McpDeps): RpcHandler {
  const tools = mcpTools();
  return async (method, params, isNotification) => {
    // A notification gets no answer, so it may not run anything either (a tools/call without an id is dropped).
    if (isNotification) return undefined;
    switch (method) {
      case 'initialize': {
        const asked = obj(params).protocolVersion;
        const protocolVersion = (MCP_PROTOCOL_VERSIONS as readonly unknown[]).includes(asked) ? (asked as string) : MCP_PROTOCOL_VERSIONS[0];
        return { protocolVersion, capabilities: { tools: { listChanged: false } }, serverInfo: { name: 'castellan', version: deps.version } };
      }
      case 'ping':
        return {};
      case 'tools/list':
        return { tools };
      case 'tools/call': {
        const p = obj(params);
        const name = p.name;
        if (typeof name !== 'string' || !(MCP_TOOLS as readonly string[]).includes(name)) throw new RpcFault(RPC.invalidParams, `unknown tool ${JSON.stringify(name)}; tools: ${MCP_TOOLS.join(', ')}`);
        return handleToolCall(name, p.arguments, deps);
      }
      default:
        throw new RpcFault(RPC.methodNotFound, `method not found: ${method}`);
    }
  };
}

/** Serves MCP on stdin/stdout until the client goes away. */
export async function runMcpStdio(deps: McpDeps): Promise<{ error?: string }> {
  await serveJsonRpc(process.stdin, process.stdout, createMcpHandler(deps));
  return {};
}
