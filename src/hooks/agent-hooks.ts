// Runs one agent's hooks of one type: placeholders (shell-quoted), the stdout protocol, deny patterns; failures are warnings, never fatal.
import type { AgentHookEntry, AgentHookType } from '../config/agents.js';
import { compilePattern } from '../config/agents.js';
import type { Pattern } from '../platform/linear-regex.js';
import { cleanText } from '../core/text.js';
import { agentSource, type Injection, type Strength } from './inject.js';
import { controlledEnv } from './payload.js';
import { runCaptured, type RunResult } from './run.js';

/** Per-agent hook commands get less time than governance hooks: a tool call waits on them inside the agent's own hook budget. */
export const AGENT_HOOK_TIMEOUT_MS = 5000;

export interface AgentHookSubject {
  agentId: string;
  agentType: string;
  paneId?: string;
  cwd: string;
}

/** What the hook is about: the prompt (UserPromptSubmit), the tool call (SubagentStop), the response (PostSampling). */
export interface AgentHookPayload {
  prompt?: string;
  /** castellan's tool name (`shell`, `edit`, ...). */
  tool?: string;
  /** The agent's own tool name (`Bash`, `Edit`, `run_shell_command`, ...). */
  tool_name?: string;
  argv?: string[];
  tool_input?: Record<string, unknown>;
  /** The model's response text. */
  message?: string;
}

export interface AgentHookRunEvent {
  type: 'agent_hook_run';
  agent_id: string;
  agent_type: string;
  hook_type: AgentHookType;
  entry: number;
  command: string;
  outcome: 'ok' | 'deny' | 'failed' | 'timeout' | 'error';
  exit_code: number | null;
  duration_ms: number;
  reason?: string;
  pane?: string;
}

export interface AgentHookOutcome {
  decision: 'allow' | 'deny';
  reason?: string;
  contexts: Injection[];
  /** UserPromptSubmit: the prompt as the hooks left it (when one rewrote it). */
  prompt?: string;
  ran: number;
  failed: number;
}

export interface RunAgentHooksOptions {
  /** castellan's environment: only an allow-list of it reaches hook commands. */
  env: NodeJS.ProcessEnv;
  socket?: string;
  session?: string;
  emit?(e: AgentHookRunEvent): void;
  /** A warning for the server log. */
  warn?(message: string): void;
}

// ---- placeholders ----

const PLACEHOLDER = /\{\{\s*(agentId|agentType|paneId)\s*\}\}/g;

/**
 * Fills `{{agentId}}`, `{{agentType}}`, `{{paneId}}` with values quoted for the place they stand in: bare words get
 * single quotes, inside '...' or "..." the value is escaped for that quoting. So `echo 'started: {{agentType}}'` and
 * `echo {{agentType}}` both print the value as one word, whatever it contains.
 */
export function fillPlaceholders(command: string, values: { agentId: string; agentType: string; paneId?: string }): string {
  let out = '';
  let state = 'none' as 'none' | 'single' | 'double';
  let last = 0;
  const advance = (upto: number): typeof state => {
    for (let i = last; i < upto; i++) {
      const c = command[i];
      if (state === 'single') {
        if (c === "'") state = 'none';
      } else if (c === '\\') i++;
      else if (state === 'double') {
        if (c === '"') state = 'none';
      } else if (c === "'") state = 'single';
      else if (c === '"') state = 'double';
    }
    return state;
  };
  for (const m of command.matchAll(PLACEHOLDER)) {
    out += command.slice(last, m.index);
    const at = advance(m.index);
    last = m.index + m[0].length;
    const v = (m[1] === 'paneId' ? values.paneId : m[1] === 'agentId' ? values.agentId : values.agentType) ?? '';
    if (at === 'single') out += v.replace(/'/g, `'\\''`);
    else if (at === 'double') out += v.replace(/([\\"$`])/g, '\\$1');
    else out += `'${v.replace(/'/g, `'\\''`)}'`;
  }
  return out + command.slice(last);
}

/** What the server answers the bridge for one agent-hook stage (the agent.hook method). */
export interface AgentHookReply {
  registered: boolean;
  decision: 'allow' | 'deny';
  reason?: string;
  /** Tagged context for the agent (each one `<ambient|advisory|directive ...>`). */
  contexts: string[];
  /** UserPromptSubmit: the prompt as the hooks rewrote it. */
  prompt?: string;
}

// ---- environment and input ----

function hookEnv(o: RunAgentHooksOptions, s: AgentHookSubject, type: AgentHookType, p: AgentHookPayload): Record<string, string> {
  return controlledEnv(o.env, {
    CASTELLAN_HOOK_EVENT: type,
    CASTELLAN_AGENT_ID: s.agentId,
    CASTELLAN_AGENT_TYPE: s.agentType,
    CASTELLAN_PANE_ID: s.paneId,
    CASTELLAN_SOCKET: o.socket,
    CASTELLAN_SESSION: o.session,
    CASTELLAN_CWD: s.cwd,
    CASTELLAN_TOOL: p.tool,
  });
}

function stdinLine(s: AgentHookSubject, type: AgentHookType, p: AgentHookPayload): string {
  return (
    JSON.stringify({
      event: type,
      agent_id: s.agentId,
      agent_type: s.agentType,
      pane_id: s.paneId ?? null,
      cwd: s.cwd,
      timestamp: new Date().toISOString(),
      ...(type === 'UserPromptSubmit' ? { prompt: p.prompt ?? '' } : {}),
      ...(type === 'SubagentStop' ? { tool: p.tool ?? null, tool_name: p.tool_name ?? null, argv: p.argv ?? [], tool_input: p.tool_input ?? {} } : {}),
      ...(type === 'PostSampling' ? { message: p.message ?? '' } : {}),
    }) + '\n'
  );
}

// ---- matching ----

/** Does the entry's pattern select this event? Tools match by whole name (agent's or castellan's), texts anywhere. */
export function entryMatches(e: AgentHookEntry, type: AgentHookType, p: AgentHookPayload, s: AgentHookSubject): boolean {
  let re: Pattern | undefined;
  try {
    re = compilePattern(e.pattern, type === 'SubagentStop' || type === 'SubagentStart');
  } catch {
    return false;
  }
  if (!re) return true;
  switch (type) {
    case 'SubagentStop':
      return [p.tool_name, p.tool].some((n) => n !== undefined && re.test(n));
    case 'UserPromptSubmit':
      return re.test(p.prompt ?? '');
    case 'PostSampling':
      return re.test(p.message ?? '');
    case 'SubagentStart':
      return re.test(s.agentType);
  }
}

// ---- output protocol ----

interface Parsed {
  deny?: string;
  prompt?: string;
  context?: string;
  strength?: Strength;
}

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

/**
 * A command's stdout on exit 0: a JSON object `{"decision":"block"|"deny","reason"}`, `{"prompt":"new text"}`,
 * `{"context":"...","strength":"strong"}` (also `additionalContext`, or Claude-style `hookSpecificOutput.additionalContext`);
 * anything else that is not empty is plain context.
 */
export function parseHookStdout(stdout: string): Parsed {
  const t = stdout.trim();
  if (!t) return {};
  if (t.startsWith('{')) {
    try {
      const j = JSON.parse(t) as Record<string, unknown>;
      if (j && typeof j === 'object' && !Array.isArray(j)) {
        const hso = (j.hookSpecificOutput && typeof j.hookSpecificOutput === 'object' ? j.hookSpecificOutput : {}) as Record<string, unknown>;
        const decision = str(j.decision)?.toLowerCase();
        const out: Parsed = {};
        if (decision === 'block' || decision === 'deny') out.deny = str(j.reason) ?? '';
        const prompt = str(j.prompt);
        if (prompt !== undefined) out.prompt = prompt;
        const context = str(j.context) ?? str(j.additionalContext) ?? str(hso.additionalContext);
        if (context?.trim()) out.context = context;
        if (j.strength === 'strong' || j.strength === 'weak') out.strength = j.strength;
        return out;
      }
    } catch {
      /* not JSON: plain text */
    }
  }
  return { context: t };
}

function contextFor(type: AgentHookType, source: string, text: string, strength?: Strength): Injection {
  // Start and prompt-time output describes the world; output after a response or a tool call is advice about the next step.
  if (type === 'SubagentStart' || type === 'UserPromptSubmit') return { kind: 'ambient', source, text };
  return { kind: 'advisory', source, text, strength: strength ?? 'weak' };
}

function failureReason(r: RunResult, timeoutMs: number): string {
  if (r.spawnError) return `could not start: ${r.spawnError}`;
  if (r.timedOut) return `timed out after ${timeoutMs} ms (killed with its process group)`;
  const err = cleanText(r.stderr.trim(), 500);
  return `exited with ${r.signal ? `signal ${r.signal}` : `code ${r.exitCode}`}${err ? `: ${err}` : ''}`;
}

/**
 * Runs an agent's entries of one hook type in order. A `deny` (entry, exit 2, or JSON decision) stops the rest for
 * SubagentStop / UserPromptSubmit. A command that fails, times out or cannot start is a warning and is skipped:
 * per-agent hooks never fail the agent.
 */
export async function runAgentHooks(entries: readonly AgentHookEntry[], type: AgentHookType, subject: AgentHookSubject, payload: AgentHookPayload, o: RunAgentHooksOptions): Promise<AgentHookOutcome> {
  const source = agentSource(subject.agentType, type);
  const canDeny = type === 'SubagentStop' || type === 'UserPromptSubmit';
  const contexts: Injection[] = [];
  let current: AgentHookPayload = { ...payload };
  let rewritten: string | undefined;
  let ran = 0;
  let failed = 0;
  const what = type === 'SubagentStop' ? `${payload.tool_name ?? payload.tool ?? 'this tool'}` : 'this prompt';
  for (const [i, e] of entries.entries()) {
    if (!entryMatches(e, type, current, subject)) continue;
    if (e.type === 'deny') {
      if (!canDeny) continue;
      const reason = e.reason?.trim() || `${subject.agentType} may not use ${what}`;
      o.emit?.({ type: 'agent_hook_run', agent_id: subject.agentId, agent_type: subject.agentType, hook_type: type, entry: i, command: `deny ${e.pattern ?? '*'}`, outcome: 'deny', exit_code: null, duration_ms: 0, reason, ...(subject.paneId ? { pane: subject.paneId } : {}) });
      return { decision: 'deny', reason, contexts, ...(rewritten !== undefined ? { prompt: rewritten } : {}), ran, failed };
    }
    if (e.type === 'prompt') {
      contexts.push(contextFor(type, source, e.prompt ?? '', e.strength));
      continue;
    }
    const command = fillPlaceholders(e.command ?? '', subject);
    const timeoutMs = e.timeout_ms ?? AGENT_HOOK_TIMEOUT_MS;
    ran++;
    let r: RunResult;
    try {
      r = await runCaptured({ file: '/bin/sh', args: ['-c', command], cwd: subject.cwd, env: hookEnv(o, subject, type, current), input: stdinLine(subject, type, current), timeoutMs });
    } catch (err) {
      r = { exitCode: null, signal: null, stdout: '', stderr: '', truncated: false, timedOut: false, durationMs: 0, spawnError: (err as Error).message };
    }
    const base = { type: 'agent_hook_run' as const, agent_id: subject.agentId, agent_type: subject.agentType, hook_type: type, entry: i, command: e.command ?? '', exit_code: r.exitCode, duration_ms: r.durationMs, ...(subject.paneId ? { pane: subject.paneId } : {}) };
    if (r.exitCode === 2 && !r.timedOut && canDeny) {
      const reason = cleanText(r.stderr.trim() || r.stdout.trim(), 2000) || e.reason?.trim() || `denied by a ${type} hook of ${subject.agentType}`;
      o.emit?.({ ...base, outcome: 'deny', reason });
      return { decision: 'deny', reason, contexts, ...(rewritten !== undefined ? { prompt: rewritten } : {}), ran, failed };
    }
    if (r.exitCode !== 0 || r.timedOut || r.spawnError) {
      failed++;
      const reason = failureReason(r, timeoutMs);
      o.emit?.({ ...base, outcome: r.spawnError ? 'error' : r.timedOut ? 'timeout' : 'failed', reason });
      o.warn?.(`agent ${subject.agentId}: ${type} hook ${JSON.stringify(e.command)} ${reason}; ignored`);
      continue;
    }
    const out = parseHookStdout(r.stdout);
    if (out.deny !== undefined && canDeny) {
      const reason = cleanText(out.deny.trim(), 2000) || e.reason?.trim() || `denied by a ${type} hook of ${subject.agentType}`;
      o.emit?.({ ...base, outcome: 'deny', reason });
      return { decision: 'deny', reason, contexts, ...(rewritten !== undefined ? { prompt: rewritten } : {}), ran, failed };
    }
    o.emit?.({ ...base, outcome: 'ok' });
    if (out.prompt !== undefined && type === 'UserPromptSubmit') {
      rewritten = cleanText(out.prompt, 1_000_000);
      current = { ...current, prompt: rewritten };
    }
    if (out.context) contexts.push(contextFor(type, source, out.context, out.strength));
  }
  return { decision: 'allow', contexts, ...(rewritten !== undefined ? { prompt: rewritten } : {}), ran, failed };
}
