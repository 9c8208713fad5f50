// Regular expressions written by people (hook matchers, agent hook patterns, user detection rules) matched in
// linear time: RE2 semantics through re2js, the only importer of it, so `(a+)+` cannot stall the server.
import { RE2JS } from 're2js';

/** What callers need of a pattern; native RegExp has the same shape, so trusted built-in rules can keep it. */
export interface Pattern {
  test(text: string): boolean;
  readonly source: string;
}

export interface LinearOptions {
  ignoreCase?: boolean;
  /** `^` and `$` match at line breaks too. */
  multiline?: boolean;
  /** The pattern must match the whole text (`^(?:p)$`), as a tool-name matcher does. */
  whole?: boolean;
}

/** Patterns longer than this are not something a person writes; refusing them keeps compile time bounded too. */
export const MAX_PATTERN_LENGTH = 2000;
/** RE2 program size (instructions) allowed; `[a-z]{100}` is ~100, every pattern castellan ships is under 60. */
const MAX_PROGRAM = 600;
/** How much text one match reads at most (characters), and the work (program size × characters) it may take. */
export const MAX_INPUT = 64 * 1024;
const WORK_PER_MATCH = 1_000_000;

/**
 * Compiles `source` for linear-time matching. Throws an Error with a readable message on bad syntax, including
 * what RE2 leaves out (lookarounds, backreferences), so `config check` can say why a pattern matches nothing.
 */
export function compileLinear(source: string, opts: LinearOptions = {}): Pattern {
  if (source.length > MAX_PATTERN_LENGTH) throw new Error(`pattern is longer than ${MAX_PATTERN_LENGTH} characters`);
  const flags = (opts.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0) | (opts.multiline ? RE2JS.MULTILINE : 0);
  let re: RE2JS;
  try {
    re = RE2JS.compile(opts.whole ? `^(?:${source})$` : source, flags);
  } catch (e) {
    const msg = (e as Error).message || String(e);
    const why = /\(\?[=!<]/.test(source) ? ' (lookarounds are not supported: patterns run in linear time)' : /\\[1-9]/.test(source) ? ' (backreferences are not supported: patterns run in linear time)' : '';
    throw new Error(`${msg}${why}`);
  }
  const size = re.programSize();
  if (size > MAX_PROGRAM) throw new Error(`pattern is too complex (${size} steps; at most ${MAX_PROGRAM})`);
  // Linear, but re2js spends ~1 µs per character per few steps: the text read is bounded so one match costs
  // at most a few tens of milliseconds, whatever the agent sends. Longer texts are matched on their start.
  const maxInput = Math.min(MAX_INPUT, Math.floor(WORK_PER_MATCH / Math.max(1, size)));
  return { source, test: (text: string) => re.matcher(text.length > maxInput ? text.slice(0, maxInput) : text).find() };
}
