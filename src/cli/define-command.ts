// defineCommand: one CLI command = name, usage, parseArgs options and a run function returning the exit code.
import type { ParseArgsConfig } from 'node:util';
import type { ApiClient } from '../api/client.js';
import type { Paths } from '../platform/paths.js';

export interface CliContext {
  paths: Paths;
  /** Session asked for with --session (undefined: from CASTELLAN_SOCKET / the default). */
  sessionFlag?: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
  out(s: string): void;
  err(s: string): void;
  /** Connects to the running server or throws NotRunningError (exit 3). */
  connect(): Promise<ApiClient>;
  version: string;
  /** `castellan --no-restore`: this start ignores the session's snapshot (false); undefined: config decides. */
  restore?: boolean;
}

export interface ParsedArgs {
  values: Record<string, string | boolean | string[] | boolean[] | undefined>;
  positionals: string[];
  /** Words after `--`. */
  rest: string[];
}

export interface CommandDef {
  name: string;
  usage: string;
  summary: string;
  /** Longer help text shown by `castellan help <command>`. */
  details?: string;
  options?: ParseArgsConfig['options'];
  positionals?: boolean;
  run(ctx: CliContext, args: ParsedArgs): Promise<number>;
}

export function defineCommand(def: CommandDef): CommandDef {
  return def;
}

/** Exit codes are part of the public contract (see ARCHITECTURE.md). */
export const EXIT = { ok: 0, error: 1, usage: 2, notRunning: 3, paneGone: 4, timeout: 124 } as const;

const USAGE = Symbol.for('castellan.UsageError');

/**
 * A wrong command line (exit 2). Checked with `instanceof` across the CLI's two bundles (dist/cli/main.cjs and the ES
 * chunks of the commands it does not carry, each with its own copy of this class): by a mark both copies know.
 */
export class UsageError extends Error {
  static override [Symbol.hasInstance](x: unknown): boolean {
    return typeof x === 'object' && x !== null && (x as Record<symbol, unknown>)[USAGE] === true;
  }
  constructor(message?: string) {
    super(message);
    Object.defineProperty(this, USAGE, { value: true });
  }
}
