// The fast entry for `castellan hook AGENT EVENT [PAYLOAD_JSON]`: what bin/castellan.js loads instead of the whole CLI.
//
// An agent runs the hook bridge on every tool call and waits for it, so this path skips the CLI (its command
// table, argument parser and error mapping) and loads only the bridge, governance and their config reader.
// The build bundles it into one CommonJS file, dist/hook/hook-main.cjs (scripts/bundle-hook.mjs), that the CommonJS bin
// requires: no ES module loader and one file instead of ~150 modules; governance loads from dist/hook/lazy/ only when
// the server cannot decide a tool call (hook.decide).
// Anything else (a flag, help, a wrong word count) goes through the full CLI, which gives the usual messages.
import { resolvePaths } from '../platform/paths.js';
import { HookUsageError, runHook } from './hook-command.js';
import { exitWhenFlushed, writeErr } from './hook-output.js';

export { exitWhenFlushed };

/** Is this argv (after `node castellan.js`) one the fast entry serves exactly as the CLI would? */
export function isFastHookArgv(argv: readonly string[]): boolean {
  return argv[0] === 'hook' && argv.length >= 3 && argv.length <= 4 && argv.slice(1).every((a) => !a.startsWith('-')) && argv[1] !== '' && argv[2] !== '';
}

export async function hookMain(argv: readonly string[]): Promise<number> {
  let paths;
  try {
    paths = resolvePaths({});
  } catch (e) {
    writeErr(`castellan: ${(e as Error).message}\n`);
    return 2;
  }
  try {
    return await runHook({ paths, env: process.env, cwd: process.cwd() }, argv.slice(1));
  } catch (e) {
    writeErr(`castellan hook: ${(e as Error).message}${e instanceof HookUsageError ? '\nusage: castellan hook AGENT EVENT [PAYLOAD_JSON]' : ''}\n`);
    return e instanceof HookUsageError ? 2 : 1;
  }
}
