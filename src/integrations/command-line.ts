// The shell command an agent's settings run for each hook event, and how castellan recognises its own entries again.
import { fileURLToPath } from 'node:url';
import { findExecutable } from '../platform/exec-path.js';
import { CA_CERTS_ASSIGNMENTS } from './ca-certs.js';
import { toolEventKind } from './govern.js';
import { HOOK_PAYLOAD_MAX_BYTES, readDeadline } from './hook-input.js';
import { HARNESS_TABLES } from './tables.js';
import type { AgentName } from './types.js';

/** This checkout's CLI shim (dist/integrations/ and src/integrations/ both sit two levels below the repo root). */
export const CASTELLAN_BIN = fileURLToPath(new URL('../../bin/castellan.js', import.meta.url));
export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The hook door's sh side (src/hookdoor/): hands a foreground event to the server without a Node start. */
export const DOOR_SH = fileURLToPath(new URL('../../share/hooks/door.sh', import.meta.url));

/** Single-quotes for POSIX sh (`'` becomes `'\''`); plain words stay bare so commands read well. */
export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** `castellan` on PATH, if there is one (an executable file). */
export function findOnPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  return findExecutable(name, { path: env.PATH ?? '' });
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
 *
 * `background`: for an event whose answer nobody reads (no tool call to govern), the agent need not wait for a node
 * start (~56 ms) before it goes on, e.g. sends a prompt to its model (issue 14). sh reads the payload first (`head`,
 * capped one byte past the bridge's limit so the bridge still sees "too big"): a Node agent destroys its hook's stdin
 * once the hook exits, and a payload longer than a pipe holds (a pasted prompt) would be cut. Then the bridge runs
 * detached from the agent, fed from the shell, with stdout and stderr on /dev/null (an agent waits for its hook's
 * pipes to close, not only for its exit). It runs in the foreground as before when stdin is a terminal (left to the
 * bridge's own read deadline) and in a pane started by `castellan agent start` (CASTELLAN_AGENT_ID), where the
 * agent's own hooks may answer the event (a prompt check, SessionStart context).
 */
export function hookCommand(argv: readonly string[], agent: string, event: string, o: { background?: boolean } = {}): string {
  const run = `${CA_CERTS_ASSIGNMENTS} ${[...argv, 'hook', agent, event].map(shellQuote).join(' ')}`;
  if (!o.background) return `[ -z "$CASTELLAN_ENV" ] || ${run}`;
  return `[ -z "$CASTELLAN_ENV" ] || if [ -n "$CASTELLAN_AGENT_ID" ] || [ -t 0 ]; then ${run}; else p=$(head -c ${HOOK_PAYLOAD_MAX_BYTES + 1}); { printf '%s' "$p" | ${run}; } >/dev/null 2>&1 & fi`;
}

/** A tool event castellan governs, or the turn's end: the events whose installed line waits for an answer (and takes the door). */
export function doorEvent(agent: AgentName, event: string): boolean {
  return toolEventKind(agent, event) !== undefined || HARNESS_TABLES[agent].rows.find((r) => r.event === event)?.stage === 'Stop';
}

/**
 * The line castellan installs for one of an agent's events: in the background unless it is a tool event castellan
 * governs, or the turn's end. At a turn's end the agent has nothing left to do for the user, and while it waits the
 * bridge has the CPU the agent would take for its end-of-turn redraw: with the Stop bridge in the background the
 * badge's turn end came 30-60 ms later on the project's 2-core machine (badge-latency, Claude and Codex with hooks:
 * tool answer -> rest 160 and 133 ms median, against 121 and 70 with it in the foreground).
 *
 * Those foreground events go through the hook door (share/hooks/door.sh, src/hookdoor/): sh hands the call to the
 * pane's server over a FIFO and prints its answer, a few ms instead of a node start (~100 ms here); what the door
 * cannot serve, door.sh execs the very bridge command this line used to run. A `--use-path` install (argv is just
 * `castellan`) keeps the plain bridge line: it has no checkout to find door.sh in.
 */
export function installedHookCommand(argv: readonly string[], agent: AgentName, event: string): string {
  if (!doorEvent(agent, event)) return hookCommand(argv, agent, event, { background: true });
  if (argv.length !== 2) return hookCommand(argv, agent, event);
  return doorCommand(argv, agent, event);
}

/**
 * `door.sh SECONDS NODE BIN hook AGENT EVENT`: SECONDS is how long sh waits for the payload (the bridge's own read
 * deadline for the event, hook-input.ts readDeadline without the tests' override), and the rest is the bridge's argv, so `isCastellanCommand` still knows the line.
 */
export function doorCommand(argv: readonly string[], agent: AgentName, event: string): string {
  const seconds = readDeadline({}, toolEventKind(agent, event) === 'pre') / 1000;
  return `[ -z "$CASTELLAN_ENV" ] || ${CA_CERTS_ASSIGNMENTS} exec /bin/sh ${shellQuote(DOOR_SH)} ${seconds} ${[...argv, 'hook', agent, event].map(shellQuote).join(' ')}`;
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
