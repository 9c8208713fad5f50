// Zod schema of a detection rule file (src/detect/rules/<agent>.toml, ~/.castellan/detect/<agent>.toml).
import { z } from 'zod';

export const DETECT_STATES = ['idle', 'working', 'blocked', 'done', 'unknown'] as const;
export type DetectState = (typeof DETECT_STATES)[number];

/** Where a rule looks. `bottom`/`screen` skip blank rows, so a rule reads the same at any screen height. */
export const REGIONS = ['bottom', 'screen', 'title', 'cursor_row'] as const;
export type Region = (typeof REGIONS)[number];

export const DEFAULT_BOTTOM_LINES = 12;

const patterns = z.array(z.string().max(2000)).max(32);

export const ruleSchema = z.strictObject({
  /** Unique within the agent's rules; a user rule with the same id replaces the built-in one. */
  id: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'use letters, digits, "_", "-", "." (up to 64)'),
  state: z.enum(DETECT_STATES),
  /** Higher is tried first; the first rule that holds wins. Ties keep file order (built-ins first). */
  priority: z.number().int().min(-1000).max(1000).default(0),
  region: z.enum(REGIONS).default('bottom'),
  /** For region = "bottom": how many non-blank rows, counted up from the last one. */
  bottom_lines: z.number().int().min(1).max(500).optional(),
  /** Regexes (^ and $ match at each row, rows joined by "\n"): JavaScript syntax in the built-in files, RE2 syntax
   *  (linear time: no lookarounds or backreferences) in a user's ~/.castellan/detect files. */
  all: patterns.optional(),
  any: patterns.optional(),
  none: patterns.optional(),
  /** Regexes the terminal title must also match (all), whatever the region: a screen marker confirmed by the
   *  agent's own title state (Gemini's "◇  Ready" over its answer) is definitive where either alone is not. */
  title: patterns.optional(),
  /** An explicit busy marker (spinner, "esc to interrupt"): working even when the screen holds still. */
  busy: z.boolean().default(false),
  /** Unmistakable to a human: such a reading may correct a stale hook report. */
  plain: z.boolean().default(false),
  /** How long the state must hold before it is reported, overriding the detector's own timing. 0 marks a
   *  definitive marker (a turn-end summary line, a dialog's own frame): reported at once, and it corrects a
   *  hook report that missed the change without waiting. */
  hold_ms: z.number().int().min(0).max(10_000).optional(),
  /** The state shows only in its state once it has held (pi's editor with no loader above it: pi draws its loader
   *  all turn long, tool runs included): it may end a late hook report as a `hold_ms = 0` marker does, after its hold. */
  definitive: z.boolean().default(false),
  /** false switches a rule off (useful to disable a built-in rule from a user file). */
  enabled: z.boolean().default(true),
  note: z.string().max(500).optional(),
});

export type RuleInput = z.input<typeof ruleSchema>;
export type Rule = z.output<typeof ruleSchema>;

/** What to say when no rule matches. */
export const fallbackSchema = z.strictObject({
  /** The screen changed within the detector's recent window (output is flowing). */
  changing: z.enum(DETECT_STATES).default('working'),
  /** The screen holds still. */
  still: z.enum(DETECT_STATES).default('unknown'),
});

/** How to read the agent's input box, so that an Enter typed into an idle pane is known for a submitted prompt (src/detect/submit.ts). */
export const submitSchema = z.strictObject({
  /** Regex over the bottom rows (JavaScript syntax; built-in files only): capture group 1 is the input box's text. */
  input: z.string().max(2000),
  bottom_lines: z.number().int().min(1).max(500).optional(),
  /** Text an Enter does not send to the model: a slash command, a shell escape, a completion being picked. */
  skip: patterns.default([]),
  /** A permission dialog whose selected option approves (any matches, over the last APPROVE_LINES rows): an Enter
   *  there starts the tool. */
  approve: patterns.default([]),
});

/**
 * How to know the agent's process (src/detect/signatures.ts): rule file `[identify]`. Matched against a pane's process
 * tree, never against the screen. Only built-in files and the user's own directory are read: a repository's files
 * never add a signature (a signature decides which agent a program is, and with it which commands castellan runs).
 */
export const identifySchema = z.strictObject({
  /** Exact executable names: the kernel's comm (at most 15 characters) or argv[0]'s basename (`opencode`, `.kilo`). */
  names: z.array(z.string().min(1).max(64).regex(/^[^\s/]+$/, 'a file name, no "/" or spaces')).max(16).default([]),
  /** npm/pip package names: an argument (`npx opencode-ai@1.2`) or a path segment (`…/node_modules/@kilocode/cli/…`). */
  packages: z.array(z.string().min(1).max(128).regex(/^[@A-Za-z0-9._/-]+$/, 'a package name')).max(16).default([]),
  /** Regexes over one argument: the script an interpreter runs (`(?:^|/)qwen$`). RE2 syntax in a user's file. */
  scripts: z.array(z.string().min(1).max(500)).max(16).default([]),
});

export const ruleFileSchema = z.strictObject({
  agent: z.string().regex(/^[a-z0-9_-]{1,32}$/, 'lower-case letters, digits, "_" or "-"'),
  description: z.string().max(1000).optional(),
  /** Free text: which program versions and screen sizes the rules were checked against. */
  verified: z.string().max(1000).optional(),
  /** A user file: true drops the built-in rules of this agent instead of merging with them. */
  replace: z.boolean().default(false),
  bottom_lines: z.number().int().min(1).max(500).default(DEFAULT_BOTTOM_LINES),
  fallback: fallbackSchema.optional(),
  rules: z.array(z.unknown()).max(200).default([]),
  submit: submitSchema.optional(),
  identify: identifySchema.optional(),
  /** The agent does not wait for its hooks (pi goes on while its extension reports; a spawned bridge's report lands
   *  0.2-1.5 s after the event), so a hook's "working" never outranks a dialog on screen, keys or not; the screen
   *  shows the answer to a dialog itself (src/detect/hook-confirm.ts). */
  late_hooks: z.boolean().default(false),
});

export type RuleFile = z.output<typeof ruleFileSchema>;
export type Fallback = z.output<typeof fallbackSchema>;
export type Submit = z.output<typeof submitSchema>;
export type IdentifyRow = z.output<typeof identifySchema>;
