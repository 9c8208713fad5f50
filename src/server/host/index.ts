// One server process for several sessions (issue 34): a session started while a server of the same build runs for
// the same user is started inside it (its own socket, log, config, trust, snapshots and panes), as tmux's one server
// holds every session. Each session after the first costs a few MB instead of a Node process (~70 MB).
//
// The door: the server side (door.ts, loaded lazily: zod) listens on <state dir>/host-<build>.sock, 0600 in the 0700
// state directory; the starter side (join.ts, light: the CLI loads it) asks there before it forks a server.
export { hostProcess, MAX_HOSTED, type Hosted } from './process.js';
export { joinHost } from './join.js';
export { buildId, hostingOff, hostSocketPath } from './build.js';
export { claimHostDoor } from './claim.js';
export type { HostStart } from './door.js';

/** Opens the host door for this process (once; nothing when CASTELLAN_HOST=0 or another host of this build is up). */
export async function openHostDoor(o: import('./door.js').DoorOptions): Promise<void> {
  const { openDoor } = await import('./door.js');
  await openDoor(o);
}
