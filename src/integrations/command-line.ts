// The shell command an agent's settings run for each hook event, and how castellan recognises its own entries again.
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CA_CERTS_ASSIGNMENTS } from './ca-certs.js';

/** This checkout's CLI shim (dist/integrations/ and src/integrations/ both sit two levels below the repo root). */
export const CASTELLAN_BIN = fileURLToPath(new URL('../../bin/castellan.js', import.meta.url));
export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Single-quotes for POSIX sh (`'` becomes `'\''`); plain words stay bare so commands read well. */
export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** `castellan` on PATH, if there is one (an executable file). */
export function findOnPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, name);
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      /* next */
    }
  }
  return undefined;
}

/**
 * The argv that runs castellan's CLI: by default the absolute node binary and this checkout's bin/castellan.js,
 * so hooks work whatever PATH the agent was started with (GUI launchers, nvm shells, sandboxes); with
 * `usePath`, plain `castellan` (survives moving the checkout or switching node versions, needs PATH).
 */
export function cliArgv(opts: { usePath?: boolean; execPath?: string; bin?: string } = {}): string[] {
  if (opts.usePath) return ['castellan'];
  return [opts.execPath ?? process.execPath, opts.bin ?? CASTELLAN_BIN];
}

/**
 * The hook command line. The leading test keeps plain sessions untouched and cheap: outside a castellan pane the
 * agent pays for one `sh` builtin (~1 ms), not a node start (~100 ms), on every event. Inside one, node starts
 * without NODE_EXTRA_CA_CERTS (ca-certs.ts: ~70 ms of every call where it is set).
 */
export function hookCommand(argv: readonly string[], agent: string, event: string): string {
  return `[ -z "$CASTELLAN_ENV" ] || ${CA_CERTS_ASSIGNMENTS} ${[...argv, 'hook', agent, event].map(shellQuote).join(' ')}`;
}

/** Codex `notify` argv: the same guard through sh, with the JSON Codex appends passed on as the payload argument. */
export function codexNotifyArgv(argv: readonly string[]): string[] {
  const script = `[ -z "$CASTELLAN_ENV" ] || ${CA_CERTS_ASSIGNMENTS} exec ${[...argv, 'hook', 'codex', 'notify'].map(shellQuote).join(' ')} "$1"`;
  return ['/bin/sh', '-c', script, 'castellan-notify'];
}

/** Is this hook command one castellan installed? (`castellan hook ...` or `.../castellan.js' hook ...`) */
export function isCastellanCommand(cmd: unknown): boolean {
  return typeof cmd === 'string' && /castellan(?:\.js)?'?\s+hook\s/.test(cmd);
}
