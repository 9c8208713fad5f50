// Runs a castellan server in this process: session + claimed socket, logging, clean shutdown. A process may host more
// sessions after its first (src/server/host: `castellan new -s B` asks a running server of the same build to start B).
import { appendFileSync, mkdirSync } from 'node:fs';
import type { Paths } from '../platform/paths.js';
import { loadSnapshot, pruneAside, setAsideSnapshot } from '../restore/index.js';
import { ServerSession } from './session.js';
import { bindSocket, type BoundSocket } from './socket-bind.js';
import { serve, type ServeHandle } from './socket-server.js';
import { openHookDoor } from '../hookdoor/index.js';
import { startNotify } from '../notify/index.js';
import { hostProcess, openHostDoor } from './host/index.js';
import { startReaper } from './reaper.js';
import { startYoungGenShrink } from './young-gen-shrink.js';

export interface RunServerOpts {
  paths: Paths;
  cwd: string;
  version: string;
  cols?: number;
  rows?: number;
  command?: string[];
  /** `--restore` / `--no-restore`; undefined: `[session] restore` decides. A COMMAND also means a fresh start. */
  restore?: boolean;
  /** Called once the socket accepts connections. */
  onReady?(): void;
  /** The socket, already claimed by the caller (`server start` claims it before loading the server, so a losing starter exits at once). */
  bound?: BoundSocket;
  /** The session's environment (its panes', its shell's, its notify command's): process.env for the process's first session. */
  env?: NodeJS.ProcessEnv;
  /** The host door `server start` claimed before loading the server (host/claim.ts). */
  hostDoor?: Promise<BoundSocket | undefined>;
}

export async function runServer(o: RunServerOpts): Promise<void> {
  await startSession(o);
  // The first session's process takes other sessions of this build in (CASTELLAN_HOST=0: it does not).
  void openHostDoor({ stateDir: o.paths.stateDir, env: process.env, log: hostProcess.log, start: (s) => startSession(s), claimed: o.hostDoor });
  o.onReady?.();
}

/** Starts one session in this process: its own socket, log, snapshot, config, hook door, notify and web view. */
export async function startSession(o: RunServerOpts): Promise<void> {
  const { paths } = o;
  const env = o.env ?? process.env;
  mkdirSync(paths.stateDir, { recursive: true, mode: 0o700 });
  const log = (msg: string) => {
    try {
      appendFileSync(paths.serverLog, `${new Date().toISOString()} [${process.pid}] ${msg}\n`, { mode: 0o600 });
    } catch {
      /* logging must never take the server down */
    }
  };
  // Exactly one of several starters gets the socket; the rest get a SocketClaimError (see socket-bind.ts).
  const bound = o.bound ?? (await bindSocket(paths.socket));
  let exiting = false;
  // Reaper, heap tuning and signal handlers: once per process, before the first pane (host/process.ts).
  hostProcess.install(log, (hostLog) => {
    startReaper(hostLog);
    startYoungGenShrink();
  });
  const choice = o.command?.length ? false : o.restore;
  pruneAside(paths);
  // A start that does not restore would write over the snapshot: it is set aside first, kept a day (session restore).
  const replaced = choice === false ? setAsideSnapshot(paths, 'replaced') : undefined;
  if (replaced) log(`restore: not restoring; the previous snapshot is kept as ${replaced} (castellan session restore ${paths.session} brings it back)`);
  const restore = choice === false ? { choice, ...(replaced ? { message: `the previous snapshot is kept aside for a day; castellan session restore ${paths.session} brings it back` } : {}) } : { ...(await loadSnapshot(paths)), choice };
  let served: ServeHandle | undefined;
  const session = new ServerSession({
    restore,
    paths,
    cwd: o.cwd,
    env,
    version: o.version,
    cols: o.cols,
    rows: o.rows,
    command: o.command,
    log,
    onShutdown: (_reason, panesEnded) => {
      if (exiting) return;
      exiting = true;
      // Only our own socket inode is removed: a server that replaced ours keeps its path.
      bound.release();
      bound.server.close();
      // Its connections too: the process may live on for other sessions, and a peer must see this one end.
      served?.endAll();
      void door.then((d) => d?.close());
      void session.web.stop();
      notify.dispose();
      // The process exits once its last session has ended and every pane program is gone (host/process.ts).
      hostProcess.ended(paths.session, panesEnded);
    },
  });
  hostProcess.add(paths.session, { log, save: () => session.snapshots?.save() ?? Promise.resolve(), shutdown: (why) => session.shutdown(why) });
  // The server is loaded and its session built: the socket goes to its path now, and connections wait (paused) until serve().
  bound.publish();
  served = serve(bound, session, log);
  // Foreground hook calls without a Node start (src/hookdoor/); without it they take the Node bridge.
  const door = openHookDoor({ socket: paths.socket, log });
  // The user's own [notify] command on blocked / done / exited (src/notify); nothing runs while it is unset.
  const notify = startNotify({
    config: () => session.config.value.notify,
    state: () => session.state(),
    watched: () => session.web.watched(),
    // An internal listener, not an event subscriber: `ping`'s subscriber count stays the scripts' and waits' own.
    subscribe: (cb) => {
      session.internalListeners.add(cb);
      return () => void session.internalListeners.delete(cb);
    },
    session: paths.session,
    env,
    log,
  });
  log(`listening on ${paths.socket} (session ${paths.session}, cwd ${o.cwd}${hostProcess.size > 1 ? `, hosted with ${hostProcess.names().filter((n) => n !== paths.session).join(', ')}` : ''})`);
}
