// Pure rule engine: compiles a rule set's regexes once, then maps a screen snapshot to the state of the best rule.
import type { TerminalSignals } from './generic-signals.js';
import { compileLinear, type Pattern } from '../platform/linear-regex.js';
import { DEFAULT_BOTTOM_LINES, type DetectState, type Fallback, type Region, type Rule, type Submit } from './rules-schema.js';

/** What detection reads: a plain-text view of the visible screen (src/server/screen.ts snapshot()). */
export interface DetectSnapshot {
  /** Plain text of the visible rows, top to bottom (trailing spaces may or may not be trimmed). */
  lines: readonly string[];
  /** Terminal title (OSC 0/2). */
  title: string;
  /** 0-based cursor position inside the visible screen. */
  cursor: { x: number; y: number };
  cols: number;
  rows: number;
  /** Terminal events counted by the screen (OSC 9;4, bells, notifications): read by the generic reader only. */
  signals?: TerminalSignals;
}

export interface CompiledRule {
  id: string;
  state: DetectState;
  priority: number;
  region: Region;
  bottomLines: number;
  all: readonly Pattern[];
  any: readonly Pattern[];
  none: readonly Pattern[];
  title: readonly Pattern[];
  busy: boolean;
  plain: boolean;
  /** The rule's own hold (rule file `hold_ms`); undefined: the detector decides. */
  holdMs?: number;
  /** Rule file `definitive`. */
  definitive: boolean;
  /** The file the rule came from (built-in or user), for `castellan detect` and diagnostics. */
  source: string;
}

/** The agent's input box (rule file `[submit]`): group 1 of `input` is its text. */
export interface CompiledSubmit {
  input: RegExp;
  bottomLines: number;
  skip: readonly RegExp[];
  approve: readonly RegExp[];
}

/** How many non-blank bottom rows a `[submit] approve` pattern reads (a dialog with its options and footer). */
export const APPROVE_LINES = 24;

export interface CompiledRuleSet {
  agent: string;
  submit?: CompiledSubmit;
  /** Rule file `late_hooks`. */
  lateHooks?: boolean;
  /** Sorted: priority descending, then file order. */
  rules: readonly CompiledRule[];
  fallback: Fallback;
  verified?: string;
  sources: readonly string[];
}

export interface Match {
  state: DetectState;
  /** Id of the rule that matched. */
  rule: string;
  /** The rule is an explicit busy marker. */
  busy: boolean;
  /** The rule is unmistakable (may correct a stale hook report). */
  plain: boolean;
  /** The rule's own hold, if it sets one. */
  holdMs?: number;
  /** Rule file `definitive`: a turn end once held. */
  definitive?: boolean;
  priority: number;
  source: string;
}

export interface RuleProblem {
  rule: string;
  source: string;
  message: string;
}

export const DEFAULT_FALLBACK: Fallback = { changing: 'working', still: 'unknown' };

/** Compiles patterns with flags "mu"; a pattern only valid without "u" (e.g. `\-`) gets "m" alone. */
export function compilePattern(src: string): RegExp {
  try {
    return new RegExp(src, 'mu');
  } catch {
    return new RegExp(src, 'm'); // throws the SyntaxError the caller reports
  }
}

export interface RuleSetInput {
  agent: string;
  /** `linear`: the rule comes from a user's file, so its patterns are matched in linear time (RE2 syntax). */
  rules: ReadonlyArray<{ rule: Rule; source: string; linear?: boolean }>;
  bottomLines?: number;
  fallback?: Fallback;
  verified?: string;
  /** Built-in files only: its regex needs a capture group, which linear-time user patterns do not offer. */
  submit?: Submit;
  lateHooks?: boolean;
}

function compileSubmit(input: RuleSetInput, problems: RuleProblem[]): CompiledSubmit | undefined {
  const s = input.submit;
  if (!s) return undefined;
  try {
    return { input: compilePattern(s.input), bottomLines: s.bottom_lines ?? input.bottomLines ?? DEFAULT_BOTTOM_LINES, skip: s.skip.map(compilePattern), approve: s.approve.map(compilePattern) };
  } catch (err) {
    problems.push({ rule: 'submit', source: input.agent, message: `bad regex: ${(err as Error).message}` });
    return undefined;
  }
}

/** Compiles every enabled rule; a rule with a bad regex is dropped and reported, never thrown. */
export function compileRuleSet(input: RuleSetInput): { set: CompiledRuleSet; problems: RuleProblem[] } {
  const problems: RuleProblem[] = [];
  const compiled: Array<CompiledRule & { order: number }> = [];
  input.rules.forEach(({ rule, source, linear }, order) => {
    if (!rule.enabled) return;
    try {
      // Built-in rules are ours, reviewed and tested against hostile screens, and use lookarounds; a user's are not.
      const one = linear ? (src: string) => compileLinear(src, { multiline: true }) : compilePattern;
      const re = (list: readonly string[] | undefined) => (list ?? []).map(one);
      compiled.push({
        id: rule.id, state: rule.state, priority: rule.priority, region: rule.region,
        bottomLines: rule.bottom_lines ?? input.bottomLines ?? DEFAULT_BOTTOM_LINES,
        all: re(rule.all), any: re(rule.any), none: re(rule.none), title: re(rule.title),
        busy: rule.busy, plain: rule.plain, holdMs: rule.hold_ms, definitive: rule.definitive, source, order,
      });
    } catch (err) {
      problems.push({ rule: rule.id, source, message: `bad regex: ${(err as Error).message}` });
    }
  });
  compiled.sort((a, b) => b.priority - a.priority || a.order - b.order);
  const rules = compiled.map(({ order: _o, ...r }) => r);
  const sources = [...new Set(input.rules.map((r) => r.source))];
  const submit = compileSubmit(input, problems);
  return {
    set: { agent: input.agent, ...(submit ? { submit } : {}), ...(input.lateHooks ? { lateHooks: true } : {}), rules, fallback: input.fallback ?? DEFAULT_FALLBACK, verified: input.verified, sources },
    problems,
  };
}

/** Region texts for one snapshot, computed lazily and at most once each. */
class Regions {
  private nonBlank: number[] | undefined;
  private readonly cache = new Map<string, string>();
  constructor(private readonly snap: DetectSnapshot) {}

  text(region: Region, bottomLines: number): string {
    if (region === 'title') return this.snap.title;
    if (region === 'cursor_row') return this.snap.lines[this.snap.cursor.y] ?? '';
    const key = region === 'screen' ? 'screen' : `b${bottomLines}`;
    let text = this.cache.get(key);
    if (text === undefined) {
      const rows = this.rows();
      const from = region === 'screen' ? 0 : Math.max(0, rows.length - bottomLines);
      const out: string[] = [];
      for (let i = from; i < rows.length; i++) out.push(this.snap.lines[rows[i]]);
      text = out.join('\n');
      this.cache.set(key, text);
    }
    return text;
  }

  private rows(): number[] {
    if (!this.nonBlank) {
      this.nonBlank = [];
      const lines = this.snap.lines;
      for (let i = 0; i < lines.length; i++) if (lines[i].trim() !== '') this.nonBlank.push(i);
    }
    return this.nonBlank;
  }
}

function holds(rule: CompiledRule, text: string, title: string): boolean {
  for (const re of rule.title) if (!re.test(title)) return false;
  for (const re of rule.all) if (!re.test(text)) return false;
  if (rule.any.length > 0 && !rule.any.some((re) => re.test(text))) return false;
  for (const re of rule.none) if (re.test(text)) return false;
  return true;
}

const toMatch = (r: CompiledRule): Match => ({
  state: r.state, rule: r.id, busy: r.busy, plain: r.plain, ...(r.holdMs !== undefined ? { holdMs: r.holdMs } : {}), ...(r.definitive ? { definitive: true } : {}), priority: r.priority, source: r.source,
});

/** The best matching rule for a snapshot, or undefined when none holds. Pure; each region text is built once. */
export function evaluate(set: CompiledRuleSet, snap: DetectSnapshot): Match | undefined {
  const regions = new Regions(snap);
  for (const rule of set.rules) {
    if (holds(rule, regions.text(rule.region, rule.bottomLines), snap.title)) return toMatch(rule);
  }
  return undefined;
}

/** Every rule that holds, best first (for `castellan detect --all` and rule authors). */
export function explain(set: CompiledRuleSet, snap: DetectSnapshot): Match[] {
  const regions = new Regions(snap);
  return set.rules.filter((rule) => holds(rule, regions.text(rule.region, rule.bottomLines), snap.title)).map(toMatch);
}

/** The text in the agent's input box (its first row, trimmed), or undefined when no input box shows. */
export function inputText(set: CompiledRuleSet, snap: DetectSnapshot): string | undefined {
  if (!set.submit) return undefined;
  const m = set.submit.input.exec(new Regions(snap).text('bottom', set.submit.bottomLines));
  return m ? (m[1] ?? '').replace(/[\s\u00a0]+$/u, '').replace(/^[\s\u00a0]+/u, '') : undefined;
}

/** Whether the dialog on screen has an approving option selected (`[submit] approve`). */
export function approvalSelected(set: CompiledRuleSet, snap: DetectSnapshot): boolean {
  if (!set.submit?.approve.length) return false;
  const text = new Regions(snap).text('bottom', APPROVE_LINES);
  return set.submit.approve.some((re) => re.test(text));
}

/** The text a rule's regexes see, for debugging rules. */
export function regionText(snap: DetectSnapshot, region: Region, bottomLines = DEFAULT_BOTTOM_LINES): string {
  return new Regions(snap).text(region, bottomLines);
}
