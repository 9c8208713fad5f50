// `castellan mcp`: serve governed `shell` and `exec` tools to any MCP client over stdio.
import { ServerLink } from '../../hooks/emit.js';
import { runMcpStdio } from '../../hooks/mcp-server.js';
import { defineCommand, EXIT } from '../define-command.js';

export default defineCommand({
  name: 'mcp',
  usage: 'castellan mcp [--agent-id ID]',
  summary: 'Serve governed shell/exec tools over MCP (stdio): every call goes through hooks, the permission policy and plan verify.',
  details: [
    'Register it with an MCP client as the command `castellan mcp`. Tools: `shell` and `exec`, arguments {command} or',
    '{argv}, optional workflow_plan (alias tool_workflow), workflow_step, agent_id, timeout_ms. A call returns JSON',
    '{exit_code, stdout, stderr}; a denied call is an error result carrying the reason. stdout is the protocol channel.',
  ].join('\n'),
  options: { 'agent-id': { type: 'string' } },
  run: async (ctx, { values }) => {
    // One connection to the castellan server for the life of the MCP server, for events and prompts.
    const link = new ServerLink(ctx.paths.socket);
    try {
      const r = await runMcpStdio({
        cwd: ctx.cwd,
        env: ctx.env,
        paths: ctx.paths,
        version: ctx.version,
        link,
        ...(values['agent-id'] !== undefined ? { agentId: String(values['agent-id']) } : {}),
      });
      if (r.error) {
        ctx.err(`castellan mcp: ${r.error}`);
        return EXIT.error;
      }
      return EXIT.ok;
    } finally {
      link.close();
    }
  },
});
