// The hooks block of an agent definition: entry and hook-type schemas (with the spec's aliases) and pattern compiling.
import { z } from 'zod';
import { compileLinear, type Pattern } from '../platform/linear-regex.js';

export const AGENT_HOOK_TYPES = ['SubagentStart', 'UserPromptSubmit', 'SubagentStop', 'PostSampling'] as const;
export type AgentHookType = (typeof AGENT_HOOK_TYPES)[number];

/**
 * A pattern matches a whole name (tool) or anywhere in a prompt, case-insensitively; `*` or empty = everything.
 * RE2 syntax, matched in linear time: the file may come from a repository, the text from an agent.
 */
export function compilePattern(pattern: string | undefined, whole: boolean): Pattern | undefined {
  const p = (pattern ?? '').trim();
  if (p === '' || p === '*') return undefined;
  return compileLinear(p, { whole, ignoreCase: true });
}

export const MAX_COMMAND = 8000;
const MAX_PROMPT = 64 * 1024;

const entrySchema = z
  .object({
    type: z.enum(['command', 'deny', 'prompt']),
    /** A command entry's shell command, or (the spec's HookCommand shape) a prompt entry's text. */
    command: z.string().trim().min(1).max(MAX_PROMPT).optional(),
    pattern: z.string().max(1000).optional(),
    reason: z.string().max(2000).optional(),
    /** The text of a `prompt` entry. */
    prompt: z.string().max(MAX_PROMPT).optional(),
    timeout_ms: z.number().int().min(100).max(600_000).optional(),
    strength: z.enum(['weak', 'strong']).optional(),
  })
  .strict()
  .superRefine((e, ctx) => {
    if (e.type === 'command' && !e.command) ctx.addIssue({ code: 'custom', path: ['command'], message: 'a "command" entry needs a command' });
    if (e.type === 'command' && e.command && e.command.length > MAX_COMMAND)
      ctx.addIssue({ code: 'custom', path: ['command'], message: `a command is at most ${MAX_COMMAND} characters` });
    if (e.type === 'prompt' && !e.prompt?.trim() && !e.command) ctx.addIssue({ code: 'custom', path: ['prompt'], message: 'a "prompt" entry needs its text in "prompt" (or "command")' });
    try {
      compilePattern(e.pattern, false);
    } catch (err) {
      ctx.addIssue({ code: 'custom', path: ['pattern'], message: `not a valid regular expression: ${(err as Error).message}` });
    }
  })
  // A prompt entry written the HookCommand way (text in `command`) comes out with its text in `prompt`, like the other.
  .overwrite((e) => (e.type === 'prompt' && !e.prompt?.trim() && e.command ? { ...e, prompt: e.command } : e));
export type AgentHookEntry = z.infer<typeof entrySchema>;

/** The spec's other names for hook types. */
const HOOK_TYPE_ALIASES: Readonly<Record<string, AgentHookType>> = { Stop: 'SubagentStop' };

/** `Stop:` entries join `SubagentStop:` ones, in the order the keys are written. */
export function unalias(raw: unknown): unknown {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return raw;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw)) {
    const key = Object.hasOwn(HOOK_TYPE_ALIASES, k) ? HOOK_TYPE_ALIASES[k] : k;
    const prev = out[key];
    out[key] = Array.isArray(prev) && Array.isArray(v) ? [...prev, ...v] : prev !== undefined && key !== k ? prev : v;
  }
  return out;
}

export const hooksSchema = z
  .object(Object.fromEntries(AGENT_HOOK_TYPES.map((t) => [t, z.array(entrySchema).max(50).optional()])) as Record<AgentHookType, z.ZodOptional<z.ZodArray<typeof entrySchema>>>)
  .strict()
  .superRefine((h, ctx) => {
    for (const t of ['SubagentStart', 'PostSampling'] as const) {
      (h[t] ?? []).forEach((e, i) => {
        if (e.type === 'deny') ctx.addIssue({ code: 'custom', path: [t, i, 'type'], message: `"deny" entries apply to SubagentStop (tools) and UserPromptSubmit (prompts), not ${t}` });
      });
    }
  });
export type AgentHooks = Partial<Record<AgentHookType, AgentHookEntry[]>>;
