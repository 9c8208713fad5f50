// An ACP tool call in castellan's terms: the policy's tool name, the argv that is checked, the args envelope.
const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
const obj = (v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

export interface GovernedCall {
  /** The policy's name: `shell` for ACP's `execute` kind (one policy line governs every agent's shell), else the kind. */
  tool: string;
  argv: string[];
  /** The agent's rawInput: plan verify reads workflow_plan / tool_workflow from it. */
  toolInput: Record<string, unknown>;
  /** What the editor shows (the call's title). */
  title: string;
  toolCallId: string;
}

/**
 * ACP v1 tool calls carry a `kind` (read, edit, delete, move, search, execute, think, fetch, switch_mode, other), a
 * title and the agent's rawInput; there is no portable tool name, so the kind is the name policies and hooks see.
 */
export function governedCall(toolCall: unknown): GovernedCall {
  const t = obj(toolCall);
  const toolInput = obj(t.rawInput);
  const kind = (str(t.kind) ?? 'other').toLowerCase();
  const title = str(t.title) ?? kind;
  const toolCallId = str(t.toolCallId) ?? '';
  if (kind === 'execute') {
    const c = toolInput.command;
    const command = str(c) ?? (Array.isArray(c) ? c.map(String).join(' ') : undefined) ?? title;
    return { tool: 'shell', argv: command ? ['/bin/sh', '-c', command] : [], toolInput, title, toolCallId };
  }
  const locations = Array.isArray(t.locations) ? t.locations.map((l) => str(obj(l).path)).filter((p): p is string => !!p) : [];
  const target = str(toolInput.file_path) ?? str(toolInput.path) ?? str(toolInput.absolute_path) ?? str(toolInput.url) ?? str(toolInput.pattern) ?? locations[0];
  return { tool: kind, argv: target ? [target] : [], toolInput, title, toolCallId };
}
