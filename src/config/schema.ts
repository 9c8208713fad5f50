// The config's shape: zod schemas, defaults, and a per-key validator that keeps every good value.
import { z } from 'zod';

export const HOOK_EVENTS = ['SessionStart', 'SessionEnd', 'PreToolUse', 'PostToolUse'] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** snake_case spellings people carry over from other tools; normalised to the PascalCase names. */
export const HOOK_EVENT_ALIASES: Readonly<Record<string, HookEvent>> = {
  session_start: 'SessionStart',
  session_end: 'SessionEnd',
  pre_tool_use: 'PreToolUse',
  post_tool_use: 'PostToolUse',
};

/** Agents an agent definition without a `command` may run (`[agents] default`, else the first on PATH). */
// Appended, not sorted: "the first on PATH" keeps preferring the first four.
export const DEFAULT_AGENTS = ['claude', 'codex', 'gemini', 'pi', 'opencode', 'kilo', 'copilot', 'qwen'] as const;

export const PERMISSIONS = ['allow', 'deny', 'prompt'] as const;
export type Permission = (typeof PERMISSIONS)[number];

// Every schema carries its own human message, because these messages end up in front of users
// ("ui.scrollback: expected a whole number between 0 and 1000000, got \"lots\"").
const int = (min: number, max: number) => {
  const error = `expected a whole number between ${min} and ${max}`;
  return z.int({ error }).min(min, { error }).max(max, { error });
};
const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: `expected one of ${values.map((v) => JSON.stringify(v)).join(', ')}` });
/** A governance decision: the message names the value first (`"Deny" is not a decision`), as the fail-closed reason quotes it. */
const decision = () => z.enum(PERMISSIONS, { error: `{value} is not a decision (allow, deny or prompt)` });
const str = () => z.string({ error: 'expected a string' });
const bool = () => z.boolean({ error: 'expected true or false' });
const strList = () => z.array(str(), { error: 'expected a list of strings' });
const required = (name: string, expected: string) => (iss: { input?: unknown }) =>
  iss.input === undefined ? `missing "${name}"` : expected;

const HookEventSchema = z
  .string({ error: required('event', 'expected a string') })
  .transform((v, ctx) => {
    const event = (HOOK_EVENTS as readonly string[]).includes(v) ? (v as HookEvent) : HOOK_EVENT_ALIASES[v];
    if (event) return event;
    ctx.addIssue({ code: 'custom', message: `unknown event ${JSON.stringify(v)}; expected one of ${HOOK_EVENTS.join(', ')}` });
    return z.NEVER;
  });

const hookShape = {
  event: HookEventSchema,
  command: z.string({ error: required('command', 'expected a string') }).min(1, { error: '"command" is empty' }),
  matcher: str().optional(),
  timeout_ms: int(1, 600_000).optional(),
  id: str().optional(),
};

/**
 * `kind` is the hooks contract's other name for `event` (same spellings). Either one names the event; both with
 * different events is an error rather than a guess. The entry comes out with `event` only.
 */
const hookEntry = z
  .object({ ...hookShape, event: HookEventSchema.optional(), kind: HookEventSchema.optional() })
  .superRefine((h, ctx) => {
    if (h.event === undefined && h.kind === undefined) ctx.addIssue({ code: 'custom', message: 'missing "event" (or its alias "kind")' });
    else if (h.event !== undefined && h.kind !== undefined && h.event !== h.kind)
      ctx.addIssue({ code: 'custom', message: `"event" (${h.event}) and "kind" (${h.kind}) name different events; use one of them` });
  })
  .overwrite(({ kind, ...h }) => ({ ...h, event: h.event ?? kind }));
// Still a ZodObject at run time (validateConfig walks its shape); typed as what it yields: `event` always set, no `kind`.
export const HookSchema = hookEntry as unknown as z.ZodObject<typeof hookShape>;
export type Hook = z.infer<typeof HookSchema>;

export const CONFIG_SHAPE = {
  ui: z.object({
    theme: str(),
    mouse: bool(),
    scrollback: int(0, 1_000_000),
    status_position: oneOf(['bottom', 'top']),
    pane_borders: oneOf(['rounded', 'single', 'heavy', 'double']),
    frame_ms: int(8, 1000),
    notify: oneOf(['bell', 'osc9', 'osc777', 'none']),
    window_size: oneOf(['smallest', 'largest', 'latest']),
    copy_mode_keys: oneOf(['vi', 'emacs']),
  }),
  // restore: what a start does with the session's snapshot; relaunch: programs brought back (read from the user layer only);
  // new_pane_cwd: where a new pane starts (the focused pane's directory, or the server's);
  // remain_on_exit: which panes stay when their program exits (failed: only a failure, as a shell's `exit` closes its pane).
  session: z.object({ shell: str(), restore: oneOf(['auto', 'ask', 'off']), relaunch: strList(), new_pane_cwd: oneOf(['pane', 'server']), remain_on_exit: oneOf(['failed', 'on', 'off']) }),
  // Key specs and action names are checked by the input layer; here they only need to be strings.
  keys: z.record(z.string(), str()),
  hooks: z.object({ hooks: z.array(HookSchema, { error: 'expected a list of hook tables ([[hooks.hooks]])' }) }),
  governance: z.object({
    plan_verify: z.object({ enabled: bool(), high_risk_tools: strList(), allowlisted_tools: strList() }),
    permissions: z.record(z.string(), decision()),
    // Only for calls made inside an agent's git worktree (src/worktree): a tool name, or a command's first words
    // ("git push"), mapped to a permission; the stricter of it and [governance.permissions] applies.
    worktree: z.record(z.string().max(200), decision()),
  }),
  // `default`: the program of an agent definition that names none. Per-agent tables are validated by the agents
  // module; this layer only insists they are tables.
  agents: z.object({ default: oneOf(DEFAULT_AGENTS).optional() }).catchall(z.record(z.string(), z.unknown(), { error: 'expected a table' })),
  // Delegation trees (recursive episodes): how deep, how wide, and whether children outlive their parent.
  limits: z.object({ max_depth: int(0, 64), max_children: int(0, 1024), keep_children: bool() }),
  // The web view (src/web): loopback by default; anything else needs TLS (cert + key files) and allow_remote.
  // hosts: extra Host names the page is reached by (a Tailscale name); read_only: pairings may look but not act.
  web: z.object({ bind: str().max(253), port: int(0, 65535), read_only: bool(), hosts: strList().max(16), tls_cert: str().max(4096), tls_key: str().max(4096), allow_remote: bool() }),
  // The user's own command on agent changes (src/notify): run through /bin/sh with CASTELLAN_NOTIFY_* and JSON on stdin.
  notify: z.object({ command: str().max(4096), events: z.array(oneOf(['blocked', 'done', 'exited']), { error: 'expected a list of "blocked", "done", "exited"' }), debounce_ms: int(0, 600_000) }),
};
export const ConfigSchema = z.object(CONFIG_SHAPE);
export type Config = z.infer<typeof ConfigSchema>;

type DeepPartial<T> = T extends readonly unknown[] ? T : T extends object ? { [K in keyof T]?: DeepPartial<T[K]> } : T;
/** What one file contributes: any subset of the sections and keys, every value already valid. */
export type PartialConfig = DeepPartial<Config>;

export const DEFAULT_CONFIG: Config = {
  ui: {
    theme: 'default',
    mouse: true,
    scrollback: 10_000,
    status_position: 'bottom',
    pane_borders: 'rounded',
    frame_ms: 33,
    notify: 'bell',
    window_size: 'smallest',
    copy_mode_keys: 'vi',
  },
  session: { shell: '', restore: 'auto', relaunch: [], new_pane_cwd: 'pane', remain_on_exit: 'failed' },
  keys: { prefix: 'C-b' },
  hooks: { hooks: [] },
  governance: {
    plan_verify: { enabled: false, high_risk_tools: ['shell', 'exec'], allowlisted_tools: [] },
    permissions: { default: 'allow' },
    worktree: {},
  },
  agents: {},
  limits: { max_depth: 3, max_children: 8, keep_children: false },
  web: { bind: '127.0.0.1', port: 7681, read_only: false, hosts: [], tls_cert: '', tls_key: '', allow_remote: false },
  notify: { command: '', events: ['blocked', 'done', 'exited'], debounce_ms: 1500 },
};

/** A problem found while validating, located by its path in the parsed document (numbers index arrays). */
export interface Issue {
  severity: 'error' | 'warning';
  path: Array<string | number>;
  message: string;
}

const isTable = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);

/** Renders a value for a message; JSON escapes control characters so a value cannot drive the terminal. */
export function showValue(v: unknown): string {
  if (isTable(v)) return 'a table';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof Date || (typeof v === 'object' && v !== null)) return 'a date';
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

function firstMessage(r: { error?: { issues: Array<{ message: string; path: PropertyKey[] }> } }): string {
  const issue = r.error?.issues[0];
  return issue?.message ?? 'invalid value';
}

/**
 * Validates a parsed document key by key: a bad value drops only that key, a bad array entry only that
 * entry, and unknown keys are reported and left out. Never throws.
 */
export function validateConfig(raw: unknown): { value: PartialConfig; issues: Issue[] } {
  const issues: Issue[] = [];
  const value = walk(ConfigSchema, raw, [], issues);
  return { value: (value ?? {}) as PartialConfig, issues };
}

function walk(schema: z.ZodType, raw: unknown, path: Array<string | number>, issues: Issue[]): unknown {
  if (schema instanceof z.ZodObject) {
    if (!isTable(raw)) return fail(issues, path, `expected a table, got ${showValue(raw)}`);
    const shape = schema.shape as Record<string, z.ZodType>;
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(raw)) {
      // A table with free keys beside its named ones ([agents]: `default` and per-agent tables) has a catchall.
      const sub = Object.hasOwn(shape, key) ? shape[key] : (schema.def.catchall as z.ZodType | undefined);
      if (!sub) {
        issues.push({ severity: 'warning', path: [...path, key], message: path.length === 0 ? 'unknown section; ignored' : 'unknown key; ignored' });
        continue;
      }
      const r = walk(sub, v, [...path, key], issues);
      if (r !== undefined) out[key] = r;
    }
    return out;
  }
  if (schema instanceof z.ZodRecord) {
    if (!isTable(raw)) return fail(issues, path, `expected a table, got ${showValue(raw)}`);
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(raw)) {
      const r = walk(schema.valueType as z.ZodType, v, [...path, key], issues);
      if (r !== undefined) out[key] = r;
    }
    return out;
  }
  if (schema instanceof z.ZodArray && schema.element instanceof z.ZodObject) {
    if (!Array.isArray(raw)) return fail(issues, path, `expected a list of tables, got ${showValue(raw)}`);
    return raw.flatMap((entry, i) => {
      const r = arrayEntry(schema.element as z.ZodObject, entry, [...path, i], issues);
      return r === undefined ? [] : [r];
    });
  }
  const r = schema.safeParse(raw);
  if (r.success) return r.data;
  const m = firstMessage(r);
  return fail(issues, path, m.includes('{value}') ? m.replace('{value}', showValue(raw)) : `${m}, got ${showValue(raw)}`);
}

// Entries of a list (a [[hooks.hooks]] table) are all-or-nothing: half a hook is worse than none.
function arrayEntry(schema: z.ZodObject, raw: unknown, path: Array<string | number>, issues: Issue[]): unknown {
  if (!isTable(raw)) return fail(issues, path, `expected a table, got ${showValue(raw)}; entry ignored`);
  const shape = schema.shape as Record<string, z.ZodType>;
  const known: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(raw)) {
    if (Object.hasOwn(shape, key)) known[key] = v;
    else issues.push({ severity: 'warning', path: [...path, key], message: 'unknown key; ignored' });
  }
  const r = schema.safeParse(known);
  if (r.success) return r.data;
  const why = r.error.issues.map((iss) => {
    const key = iss.path[0];
    const shown = typeof key === 'string' && known[key] !== undefined && iss.code !== 'custom';
    const got = shown ? `, got ${showValue(known[key as string])}` : '';
    const plain = iss.message.startsWith('missing') || iss.code === 'custom' || typeof key !== 'string';
    return plain ? iss.message : `${String(key)}: ${iss.message}${got}`;
  });
  return fail(issues, path, `${why.join('; ')}; entry ignored`);
}

function fail(issues: Issue[], path: Array<string | number>, message: string): undefined {
  issues.push({ severity: 'error', path, message });
  return undefined;
}
