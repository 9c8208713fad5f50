// An ACP tool call in castellan's terms: the policy's tool name, the argv that is checked, the args envelope.
const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
const obj = (v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/** Every tool name castellan gives ACP calls (governedCall below). */
export const ACP_TOOLS = ['shell', 'edit', 'delete', 'move', 'read', 'search', 'fetch', 'think', 'other'] as const;

/** The kinds ACP v1 defines; anything else (or none) is a kind castellan cannot judge by its name. */
const KNOWN_KINDS = new Set(['read', 'edit', 'delete', 'move', 'search', 'execute', 'think', 'fetch', 'switch_mode', 'other']);

export interface GovernedCall {
  /** The policy's name: `shell` for a command (one policy line governs every agent's shell), else the kind. */
  tool: string;
  argv: string[];
  /** The agent's rawInput: plan verify reads workflow_plan / tool_workflow from it. */
  toolInput: Record<string, unknown>;
  /** What the editor shows (the call's title). */
  title: string;
  toolCallId: string;
  /** The kind as the agent gave it (`weird`, or undefined when it gave none). */
  kind: string | undefined;
  /** Neither a kind ACP defines nor a command: the governor judges it as the strictest gated tool. */
  unknownKind: boolean;
  /** The fields an editor needs to show the call (title, kind, rawInput, locations), for announcing it. */
  shown: Record<string, unknown>;
  /**
   * The input names what the call acts on (a command, a path, a URL). False while an agent announces a call it is
   * still preparing (Qwen Code: rawInput {}; opencode/Kilo: rawInput {cwd}): the argv is then the title or a location.
   */
  hasInput: boolean;
}

/** A command in the call's input, whatever kind the agent claims: a command is a shell call. */
function commandOf(input: Record<string, unknown>): string | undefined {
  for (const k of ['command', 'cmd', 'argv']) {
    const c = input[k];
    if (typeof c === 'string' && c.trim()) return c;
    if (Array.isArray(c) && c.length) return c.map(String).join(' ');
  }
  return undefined;
}

/**
 * ACP v1 tool calls carry a `kind` (read, edit, delete, move, search, execute, think, fetch, switch_mode, other), a
 * title and the agent's rawInput; there is no portable tool name, so the kind is the name policies and hooks see.
 * The kind is the agent's word, so it is not trusted to lower the stakes: a command in the input makes it `shell`.
 */
export function governedCall(toolCall: unknown): GovernedCall {
  const t = obj(toolCall);
  const toolInput = obj(t.rawInput);
  const given = str(t.kind)?.toLowerCase();
  const kind = given ?? 'other';
  const title = str(t.title) ?? kind;
  const toolCallId = str(t.toolCallId) ?? '';
  const shown = { title, kind: KNOWN_KINDS.has(kind) ? kind : 'other', ...(t.rawInput !== undefined ? { rawInput: t.rawInput } : {}), ...(Array.isArray(t.locations) ? { locations: t.locations } : {}) };
  const base = { toolInput, title, toolCallId, kind: given, shown };
  const givenCommand = commandOf(toolInput);
  const command = givenCommand ?? (kind === 'execute' ? title : undefined);
  if (command !== undefined) return { ...base, tool: 'shell', argv: ['/bin/sh', '-c', command], unknownKind: false, hasInput: givenCommand !== undefined };
  const locations = Array.isArray(t.locations) ? t.locations.map((l) => str(obj(l).path)).filter((p): p is string => !!p) : [];
  const named = str(toolInput.file_path) ?? str(toolInput.path) ?? str(toolInput.absolute_path) ?? str(toolInput.url) ?? str(toolInput.pattern);
  const target = named ?? locations[0];
  return { ...base, tool: KNOWN_KINDS.has(kind) && given ? kind : 'other', argv: target ? [target] : [], unknownKind: !given || !KNOWN_KINDS.has(kind), hasInput: named !== undefined };
}
