// The environment a session's server runs with, whether it is a process of its own (daemon.ts) or a session started
// inside a running server (host/join.ts sends it, host/door.ts applies it): the starter's, naming this session.
import type { Paths } from '../platform/paths.js';

export function sessionServerEnv(base: NodeJS.ProcessEnv, paths: Pick<Paths, 'socket' | 'session'>): NodeJS.ProcessEnv {
  // The session travels in CASTELLAN_SESSION next to CASTELLAN_SOCKET: a --session flag would re-derive (and so lose) a custom socket.
  const env: NodeJS.ProcessEnv = { ...base, CASTELLAN_SOCKET: paths.socket, CASTELLAN_SESSION: paths.session, CASTELLAN_SERVER: '1' };
  // The server must not keep the caller's pane identity, nor a "say published" descriptor meant for another start.
  delete env.CASTELLAN_PANE_ID;
  delete env.CASTELLAN_ENV;
  delete env.CASTELLAN_READY_FD;
  return env;
}
