// Agent signatures (which process is which agent), compiled from the `[identify]` tables of rule files.
//
// Data, not code: each agent's rule file says how its process looks (exact executable names, npm/pip packages in
// argv, script paths an interpreter runs), so teaching castellan a new agent is one file. Built-in files are ours and
// use JavaScript regexes; a user's file (~/.castellan/detect) is matched in linear time (RE2), like its screen rules.
import { compileLinear, type Pattern } from '../platform/linear-regex.js';
import type { IdentifyRow } from './rules-schema.js';

export interface Signature {
  agent: string;
  /** Exact executable names (comm / argv[0] basename). */
  names: readonly string[];
  /** npm/pip package names: matched as an argument (`npx @google/gemini-cli`) or a path segment. */
  packages: readonly string[];
  /** One pattern per package: `pkg`, `pkg@1.2.3` as a whole argument, or `/pkg/` inside a path. */
  packageRes: readonly Pattern[];
  /** Script paths run by an interpreter (argv[1..]); matched against the whole argument. */
  scripts: readonly Pattern[];
  /** The file(s) the row came from, for `castellan detect` and diagnostics. */
  source: string;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** Compiles one `[identify]` table; throws an Error naming the bad script pattern. */
export function compileSignature(agent: string, row: IdentifyRow, source: string, linear: boolean): Signature {
  const one = (src: string): Pattern => {
    try {
      return linear ? compileLinear(src) : new RegExp(src, 'u');
    } catch (err) {
      throw new Error(`identify.scripts "${src.slice(0, 80)}": ${(err as Error).message}`);
    }
  };
  return {
    agent,
    names: [...row.names],
    packages: [...row.packages],
    // Built from an escaped literal, so RegExp is safe (no user syntax reaches it).
    packageRes: row.packages.map((p) => new RegExp(`^${escape(p)}(?:@[^/]*)?$|/${escape(p)}/`)),
    scripts: row.scripts.map(one),
    source,
  };
}

/** A user's `[identify]` for an agent that already has one adds to it (the built-in names keep working). */
export function mergeSignatures(base: Signature, more: Signature): Signature {
  return {
    agent: base.agent,
    names: [...new Set([...more.names, ...base.names])],
    packages: [...new Set([...more.packages, ...base.packages])],
    packageRes: [...more.packageRes, ...base.packageRes],
    scripts: [...more.scripts, ...base.scripts],
    source: `${more.source}, ${base.source}`,
  };
}
