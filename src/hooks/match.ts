// Hook matchers: which tool (or, for session events, which plugin) a `matcher = "..."` selects.
import { compileLinear, type Pattern } from '../platform/linear-regex.js';

/** Names made only of these characters are compared exactly (a `|`-list of them is a list of names). */
const NAME_LIST = /^[A-Za-z0-9_.:/@-]+(\|[A-Za-z0-9_.:/@-]+)*$/;

export type CompiledMatcher =
  | { kind: 'any' }
  | { kind: 'names'; names: ReadonlySet<string> }
  | { kind: 'regex'; re: Pattern }
  | { kind: 'invalid'; error: string };

const cache = new Map<string, CompiledMatcher>();

/**
 * `undefined`, `""` and `"*"` match everything; `shell|exec` is an exact list of names; anything else is
 * a regular expression (RE2 syntax, matched in linear time) that must match the whole name (`mcp__.*`). An invalid expression matches nothing:
 * a typo must not widen a hook to every tool, and `castellan config check` reports it.
 */
export function compileMatcher(matcher: string | undefined): CompiledMatcher {
  const m = (matcher ?? '').trim();
  if (m === '' || m === '*') return { kind: 'any' };
  const hit = cache.get(m);
  if (hit) return hit;
  let out: CompiledMatcher;
  if (NAME_LIST.test(m)) out = { kind: 'names', names: new Set(m.split('|')) };
  else {
    try {
      out = { kind: 'regex', re: compileLinear(m, { whole: true }) };
    } catch (e) {
      out = { kind: 'invalid', error: (e as Error).message };
    }
  }
  if (cache.size > 500) cache.clear();
  cache.set(m, out);
  return out;
}

export function matches(matcher: string | undefined, name: string | undefined): boolean {
  const c = compileMatcher(matcher);
  switch (c.kind) {
    case 'any':
      return true;
    case 'names':
      return name !== undefined && c.names.has(name);
    case 'regex':
      return name !== undefined && c.re.test(name);
    case 'invalid':
      return false;
  }
}

/** A message for `config check` when a matcher cannot be compiled, else undefined. */
export function matcherProblem(matcher: string | undefined): string | undefined {
  const c = compileMatcher(matcher);
  return c.kind === 'invalid' ? `matcher ${JSON.stringify(matcher)} is not a valid regular expression (${c.error}); the hook matches nothing` : undefined;
}
