// The CLI verbs' way into this room (herd list, herd wait, pane read/send). Those commands run on every call a script
// makes, bundled into the fast CLI entry, so this door carries nothing heavy: without --machine it connects to this
// machine's server at once; naming a machine loads the rest of the room (profiles and their schema, ssh) only then.
import type { RpcClient } from '../platform/rpc-client.js';
import type { WhereContext } from './where.js';

export { backoff } from './backoff.js';
export { cleanRemote, cleanRemoteAnsi, cleanRemoteDeep, cleanRemoteLines, terminalJson } from './sanitize.js';

/** The name that means this machine in --machine and in listings. */
export const LOCAL_NAME = 'local';

/** Is this a remote machine (its text must be cleaned before it is printed)? */
export const isRemote = (machine: unknown): boolean => machine !== undefined && machine !== LOCAL_NAME;

/** The client for `--machine NAME` (none, or `local`: this machine's server). */
export async function connectWhere(ctx: WhereContext, machine: unknown): Promise<RpcClient> {
  if (!isRemote(machine)) return ctx.connect();
  return (await import('./where.js')).connectNamed(ctx, String(machine));
}

/** The whole room, for a command that names machines (loaded on demand). */
export const machinesRoom = () => import('./index.js');
