// What the MCP server (`castellan mcp`) fires, for the harness parity matrix: governed tool calls, nothing else.
import { MCP_TOOLS } from './mcp-server.js';
import type { HarnessStageTable } from './stage-table.js';

const tools = MCP_TOOLS.map((t) => `tool ${t}`);

export const MCP_STAGES: HarnessStageTable = {
  harness: 'mcp',
  label: 'MCP server (`castellan mcp`)',
  stages: {
    state: { via: [] },
    SessionStart: { via: [], note: 'an MCP client has no castellan session; launch the client with castellan run' },
    SessionEnd: { via: [] },
    PreToolUse: { via: tools, note: 'then the permission policy and plan verify' },
    PostToolUse: { via: tools },
    UserPromptSubmit: { via: [] },
    SubagentStart: { via: [] },
    SubagentStop: { via: [] },
    PostSampling: { via: [] },
  },
};
