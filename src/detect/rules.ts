// Loads detection rule sets: built-in TOML files shipped in src/detect/rules/, merged with the user's
// ~/.castellan/detect/<agent>.toml (same id replaces, enabled = false removes). Never throws: bad files,
// rules and regexes become diagnostics and the rest is used.
import { existsSync, readdirSync } from 'node:fs';
import { isUtf8 } from 'node:buffer';
import { readFileBounded } from '../platform/read-file.js';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseTomlRecovering } from '../config/toml.js';
import { compileRuleSet, type CompiledRuleSet } from './engine.js';
import { ruleFileSchema, ruleSchema, type Fallback, type IdentifyRow, type Rule, type Submit } from './rules-schema.js';
import { compileSignature, mergeSignatures, type Signature } from './signatures.js';

export interface DetectDiagnostic {
  severity: 'error' | 'warning';
  file: string;
  line?: number;
  message: string;
}

export interface LoadedRules {
  /** Compiled rule set per agent name ("claude", "codex", ..., "generic"). */
  sets: ReadonlyMap<string, CompiledRuleSet>;
  /** Which process is which agent: the files' `[identify]` rows, the user's first (src/detect/signatures.ts). */
  signatures: readonly Signature[];
  diagnostics: DetectDiagnostic[];
}

export const GENERIC_AGENT = 'generic';
const MAX_FILE_BYTES = 256 * 1024;

/**
 * The built-in rules directory. Under tsx this module is src/detect/rules.ts and the files sit next to
 * it; after tsc it is dist/detect/rules.js and the TOML files stay in src/detect/rules (package.json
 * "files" ships that folder), two levels up from here.
 */
export function builtinRulesDir(): string {
  const candidates = [new URL('./rules/', import.meta.url), new URL('../../src/detect/rules/', import.meta.url)];
  for (const url of candidates) {
    const dir = fileURLToPath(url);
    if (existsSync(join(dir, `${GENERIC_AGENT}.toml`))) return dir;
  }
  return fileURLToPath(candidates[0]);
}

interface ParsedFile {
  agent: string;
  replace: boolean;
  bottomLines: number;
  fallback?: Fallback;
  verified?: string;
  submit?: Submit;
  identify?: IdentifyRow;
  lateHooks: boolean;
  rules: Rule[];
  /** The file sets screen rules or a fallback (a file with only `[identify]` leaves its agent on the generic rules). */
  hasRules: boolean;
}

/** Parses one rule file's text; problems go to `diags`, whatever is valid is kept. */
export function parseRuleFile(text: string, file: string, diags: DetectDiagnostic[], expectAgent?: string): ParsedFile | undefined {
  const toml = parseTomlRecovering(text);
  for (const e of toml.errors) diags.push({ severity: 'error', file, line: e.line, message: e.message });
  const head = ruleFileSchema.safeParse(toml.value);
  if (!head.success) {
    for (const issue of head.error.issues) {
      const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
      diags.push({ severity: 'error', file, line: toml.locate(path), message: `${path.join('.') || '(file)'}: ${issue.message}` });
    }
    return undefined;
  }
  const f = head.data;
  if (expectAgent && f.agent !== expectAgent) {
    diags.push({ severity: 'warning', file, line: toml.locate(['agent']), message: `agent = "${f.agent}" in a file named for "${expectAgent}": using "${f.agent}"` });
  }
  const rules: Rule[] = [];
  const ids = new Set<string>();
  f.rules.forEach((raw, i) => {
    const r = ruleSchema.safeParse(raw);
    if (!r.success) {
      const issue = r.error.issues[0];
      const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
      diags.push({ severity: 'error', file, line: toml.locate(['rules', i, ...path]), message: `rules[${i}]${path.length ? '.' + path.join('.') : ''}: ${issue.message}; rule ignored` });
      return;
    }
    if (ids.has(r.data.id)) diags.push({ severity: 'warning', file, line: toml.locate(['rules', i]), message: `rule id "${r.data.id}" repeats; the later one wins` });
    ids.add(r.data.id);
    rules.push(r.data);
  });
  return {
    agent: f.agent, replace: f.replace, bottomLines: f.bottom_lines, fallback: f.fallback, verified: f.verified,
    ...(f.submit ? { submit: f.submit } : {}), ...(f.identify ? { identify: f.identify } : {}), lateHooks: f.late_hooks, rules,
    hasRules: f.rules.length > 0 || f.fallback !== undefined || f.replace,
  };
}

function readRuleFiles(dir: string, diags: DetectDiagnostic[]): Array<{ file: string; parsed: ParsedFile }> {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.toml')).sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') diags.push({ severity: 'error', file: dir, message: `cannot read: ${(err as Error).message}` });
    return [];
  }
  const out: Array<{ file: string; parsed: ParsedFile }> = [];
  for (const name of names) {
    const file = join(dir, name);
    const r = readFileBounded(file, MAX_FILE_BYTES);
    if (!r.ok) {
      diags.push({ severity: 'error', file, message: `cannot read: ${r.message}; ignored` });
      continue;
    }
    // A rule file is short text: NUL bytes or bytes that are not UTF-8 mean a binary file (an image, a core dump) put
    // there by mistake; parsing it would only bury the real diagnostics under TOML errors.
    if (r.buf.includes(0) || !isUtf8(r.buf)) {
      diags.push({ severity: 'error', file, message: 'is a binary file, not TOML text; ignored' });
      continue;
    }
    const text = r.buf.toString('utf8');
    const parsed = parseRuleFile(text, file, diags, name.slice(0, -'.toml'.length));
    if (parsed) out.push({ file, parsed });
  }
  return out;
}

interface Layer { bottomLines: number; fallback?: Fallback; verified?: string; submit?: Submit; lateHooks: boolean; rules: Array<{ rule: Rule; source: string; linear?: boolean }> }

/** Merges a user file into an agent's layer: same id replaces in place, new ids are appended. */
function merge(base: Layer | undefined, file: string, f: ParsedFile, linear = false): Layer {
  const rules = f.replace || !base ? [] : [...base.rules];
  for (const rule of f.rules) {
    const at = rules.findIndex((r) => r.rule.id === rule.id);
    const entry = { rule, source: file, linear };
    if (at >= 0) rules[at] = entry; else rules.push(entry);
  }
  return {
    bottomLines: f.replace || !base ? f.bottomLines : base.bottomLines,
    fallback: f.fallback ?? (f.replace ? undefined : base?.fallback),
    verified: f.replace || !base ? f.verified : base.verified,
    // A user file's input box is not read (its regex needs a capture group; user patterns are linear-time RE2 tests).
    submit: linear ? (f.replace ? undefined : base?.submit) : f.submit,
    lateHooks: f.lateHooks || (!f.replace && !!base?.lateHooks),
    rules,
  };
}

export interface LoadRulesOptions {
  /** Defaults to builtinRulesDir(). */
  builtinDir?: string;
  /** The user's override directory (~/.castellan/detect); missing is fine. */
  userDir?: string;
}

/** Loads and compiles every agent's rules and signatures. */
export function loadRules(opts: LoadRulesOptions = {}): LoadedRules {
  const diagnostics: DetectDiagnostic[] = [];
  const layers = new Map<string, Layer>();
  const withRules = new Set<string>();
  const builtin = new Map<string, Signature>();
  const user = new Map<string, Signature>();
  const addSignature = (into: Map<string, Signature>, file: string, f: ParsedFile, linear: boolean) => {
    if (!f.identify) return;
    try {
      const sig = compileSignature(f.agent, f.identify, file, linear);
      const had = into.get(f.agent);
      into.set(f.agent, had ? mergeSignatures(had, sig) : sig);
    } catch (err) {
      diagnostics.push({ severity: 'error', file, message: `${(err as Error).message}; [identify] ignored` });
    }
  };
  const builtinDir = opts.builtinDir ?? builtinRulesDir();
  for (const { file, parsed } of readRuleFiles(builtinDir, diagnostics)) {
    layers.set(parsed.agent, merge(layers.get(parsed.agent), file, parsed));
    if (parsed.hasRules) withRules.add(parsed.agent);
    addSignature(builtin, file, parsed, false);
  }
  if (!layers.has(GENERIC_AGENT)) diagnostics.push({ severity: 'error', file: builtinDir, message: `no ${GENERIC_AGENT}.toml: unknown programs get no rules` });
  // The user's own directory is trusted (like ~/.castellan/config.toml): its files may add rules and signatures. A
  // repository's files never reach this loader, so a cloned repository cannot make a program count as an agent.
  if (opts.userDir) {
    for (const { file, parsed } of readRuleFiles(opts.userDir, diagnostics)) {
      if (parsed.submit) diagnostics.push({ severity: 'warning', file, message: '[submit] is read from built-in rule files only; ignored' });
      layers.set(parsed.agent, merge(layers.get(parsed.agent), file, parsed, true));
      if (parsed.hasRules) withRules.add(parsed.agent);
      addSignature(user, file, parsed, true);
    }
  }
  const sets = new Map<string, CompiledRuleSet>();
  for (const [agent, layer] of layers) {
    // A file with only [identify] (aider, amp) names an agent but leaves it on the generic rules.
    if (!withRules.has(agent)) continue;
    const { set, problems } = compileRuleSet({ agent, rules: layer.rules, bottomLines: layer.bottomLines, fallback: layer.fallback, verified: layer.verified, submit: layer.submit, lateHooks: layer.lateHooks });
    for (const p of problems) diagnostics.push({ severity: 'error', file: p.source, message: `rule "${p.rule}": ${p.message}; rule ignored` });
    sets.set(agent, set);
  }
  // The user's rows are tried first: a user who names a program differently than castellan does is right for their machine.
  const signatures = [...user.values(), ...[...builtin.values()].map((b) => (user.has(b.agent) ? undefined : b)).filter((s): s is Signature => !!s)];
  for (const [agent, sig] of user) {
    const b = builtin.get(agent);
    if (b) signatures[signatures.indexOf(sig)] = mergeSignatures(b, sig);
  }
  return { sets, signatures, diagnostics };
}

let builtinCache: LoadedRules | undefined;
/** The built-in rule files only, loaded once per process (the default signature table, tests). */
export function builtinRules(): LoadedRules {
  builtinCache ??= loadRules();
  return builtinCache;
}

const EMPTY_GENERIC: CompiledRuleSet = compileRuleSet({ agent: GENERIC_AGENT, rules: [], fallback: { changing: 'working', still: 'idle' } }).set;

/** The rule set for an agent, or the generic one for an unknown program (or no agent). */
export function ruleSetFor(loaded: LoadedRules, agent: string | undefined): CompiledRuleSet {
  return (agent && loaded.sets.get(agent)) || loaded.sets.get(GENERIC_AGENT) || EMPTY_GENERIC;
}

export function formatDetectDiagnostic(d: DetectDiagnostic): string {
  return `${d.severity}: ${d.file}${d.line ? `:${d.line}` : ''}: ${d.message}`;
}
