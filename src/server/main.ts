// Runs a castellan server in this process: session + claimed socket, logging, clean shutdown.
import { appendFileSync, mkdirSync } from 'node:fs';
import type { Paths } from '../platform/paths.js';
import { startReaper } from './reaper.js';
import { loadSnapshot, pruneAside, setAsideSnapshot } from '../restore/index.js';
import { ServerSession } from './session.js';
import { bindSocket, type BoundSocket } from './socket-bind.js';
import { serve } from './socket-server.js';
import { startYoungGenShrink } from './young-gen-shrink.js';
import { openHookDoor } from '../hookdoor/index.js';
import { startNotify } from '../notify/index.js';

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
}

export async function runServer(o: RunServerOpts): Promise<void> {
  const { paths } = o;
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
  // Before the first pane: it ends the panes if this process dies without doing it.
  startReaper(log);
  const choice = o.command?.length ? false : o.restore;
  pruneAside(paths);
  // A start that does not restore would write over the snapshot: it is set aside first, kept a day (session restore).
  const replaced = choice === false ? setAsideSnapshot(paths, 'replaced') : undefined;
  if (replaced) log(`restore: not restoring; the previous snapshot is kept as ${replaced} (castellan session restore ${paths.session} brings it back)`);
  const restore = choice === false ? { choice, ...(replaced ? { message: `the previous snapshot is kept aside for a day; castellan session restore ${paths.session} brings it back` } : {}) } : { ...(await loadSnapshot(paths)), choice };
  const session = new ServerSession({
    restore,
    paths,
    cwd: o.cwd,
    env: process.env,
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
      void door.then((d) => d?.close());
      void session.web.stop();
      notify.dispose();
      // Exit once every pane program is gone (bounded by terminate.ts STOP_STEPS), giving queued "exit" messages a moment too.
      const exit = () => setTimeout(() => process.exit(0), 100).unref();
      void panesEnded.then(exit, exit);
    },
  });
  // The server is loaded and its session built: the socket goes to its path now, and connections wait (paused) until serve().
  bound.publish();
  serve(bound, session, log);
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
    log,
  });
  startYoungGenShrink();
  log(`listening on ${paths.socket} (session ${paths.session}, cwd ${o.cwd})`);
  // A polite stop keeps the session as it is now; kill -9 keeps the last snapshot written (at most a few seconds old).
  process.on('SIGTERM', () => void (session.snapshots?.save() ?? Promise.resolve()).finally(() => session.shutdown('SIGTERM')));
  process.on('SIGINT', () => session.shutdown('SIGINT'));
  process.on('SIGHUP', () => log('SIGHUP ignored (server keeps running)'));
  // One misbehaving pane or client must not take every other pane down with the server.
  process.on('uncaughtException', (err) => log(`uncaught: ${err.stack ?? err}`));
  process.on('unhandledRejection', (err) => log(`unhandled rejection: ${(err as Error)?.stack ?? err}`));
  o.onReady?.();
}
