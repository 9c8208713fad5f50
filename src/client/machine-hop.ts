// Another machine's session from inside a client (the chooser's Enter, prefix j, `attach -t SESSION@MACHINE`): the
// ssh bridge opened in this process, so the terminal moves there and, on detach, comes back to the session it left.
import type { ApiClient } from '../api/client.js';
import type { Paths } from '../platform/paths.js';

/** Where a client's connection goes: this machine's socket, or a machine over ssh (connected again when its link dies). */
export interface Place {
  socket: string;
  /** Opens the connection another way than `socket` (a machine: a fresh ssh bridge each call). */
  open?: () => Promise<ApiClient>;
  machine?: string;
  /** The local session this client came from: detaching there (or giving up on a lost link) comes back to it. */
  home?: { socket: string; session: string };
}

/** A fresh connection to machine `name` per call, its profile read anew (edited or disabled meanwhile); `session` overrides the profile's. */
export function machineOpener(paths: Paths, name: string, session?: string, env: NodeJS.ProcessEnv = process.env): () => Promise<ApiClient> {
  return async () => {
    const m = await import('../machines/index.js');
    const p = m.findMachine(paths, name);
    return (await m.openMachine({ paths, env, connect: () => Promise.reject(new Error('not this machine')) }, session ? { ...p, session } : p)).client;
  };
}

/** The place a hop to `machine` goes to from `here` (a local session becomes its home; a hop from a hop keeps the first home). */
export function hopPlace(paths: Paths, here: Place, hereSession: string, machine: string, session?: string): Place {
  const home = here.home ?? (here.machine ? undefined : { socket: here.socket, session: hereSession });
  return { socket: '', open: machineOpener(paths, machine, session), machine, ...(home ? { home } : {}) };
}

/** The line a client shows on arriving at another machine's session (the bar names it SESSION@MACHINE meanwhile). */
export function arrivalNotice(p: Place): { notice: { level: 'info'; message: string } } {
  const back = p.home ? `; prefix d comes back to session ${p.home.session} here` : '';
  return { notice: { level: 'info', message: `on machine ${p.machine}${back}` } };
}
