// Runs a castellan server in this process: session + socket, a start lock, logging, clean shutdown.
import { appendFileSync, closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Paths } from '../platform/paths.js';
import { startReaper } from './reaper.js';
import { loadSnapshot } from '../restore/index.js';
import { ServerSession } from './session.js';
import { ensureSocketDir, listen, probeSocket } from './socket-server.js';

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
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Two `castellan` commands starting a server at once must not both unlink and bind the socket. */
function takeLock(lock: string): () => void {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lock, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => {
        try {
          unlinkSync(lock);
        } catch {
          /* gone already */
        }
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const holder = Number(readFileSync(lock, 'utf8').trim());
      if (holder && pidAlive(holder)) throw Object.assign(new Error(`another server is starting (pid ${holder})`), { code: 'EALREADY' });
      unlinkSync(lock);
    }
  }
  throw Object.assign(new Error('could not take the start lock'), { code: 'EALREADY' });
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
  ensureSocketDir(dirname(paths.socket));
  if (await probeSocket(paths.socket)) throw Object.assign(new Error(`a server is already running on ${paths.socket}`), { code: 'EALREADY' });
  const unlock = takeLock(paths.socket + '.lock');
  let server: import('node:net').Server | undefined;
  let exiting = false;
  // Before the first pane: it ends the panes if this process dies without doing it.
  startReaper(log);
  const choice = o.command?.length ? false : o.restore;
  const restore = choice === false ? { choice } : { ...(await loadSnapshot(paths)), choice };
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
      server?.close();
      try {
        unlinkSync(paths.socket);
      } catch {
        /* already gone */
      }
      // Exit once every pane program is gone (bounded by terminate.ts STOP_STEPS), giving queued "exit" messages a moment too.
      const exit = () => setTimeout(() => process.exit(0), 100).unref();
      void panesEnded.then(exit, exit);
    },
  });
  try {
    server = await listen(paths.socket, session, log);
  } catch (e) {
    session.shutdown('could not listen');
    throw e;
  } finally {
    unlock();
  }
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
