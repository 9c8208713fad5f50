// Claiming the host door early: `server start` claims it right after its session's socket, before the server has
// loaded (about a second), so a `castellan new -d -s B` run just after `new -d -s A` (which returns before A's server
// has loaded) finds A's process and waits, queued, until it can start B there, instead of starting a second process.
import { bindSocket, type BoundSocket, HANDED_HOST_ENV } from '../socket-bind.js';
import { hostingOff, hostSocketPath } from './build.js';

/** The host socket published with its connections held until the server serves them; undefined when another host has it or hosting is off. */
export async function claimHostDoor(stateDir: string, env: NodeJS.ProcessEnv, log?: (msg: string) => void): Promise<BoundSocket | undefined> {
  if (hostingOff(env)) return undefined;
  const path = hostSocketPath(stateDir);
  try {
    // A starter that handed this server its session's socket may have claimed the door for it too (socket-handoff.ts).
    const bound = await bindSocket(path, HANDED_HOST_ENV);
    try {
      bound.publish();
    } catch (e) {
      bound.release();
      bound.server.close();
      throw e;
    }
    return bound;
  } catch (e) {
    // Another process of this build hosts already (two first sessions started at once), or the path is unusable.
    log?.(`host: not taking other sessions in: ${(e as Error).message}`);
    return undefined;
  }
}
