// `castellan server start`: a server with no client (for scripts and CI); --foreground runs it in this process.
import { closeSync, writeSync } from 'node:fs';
import { bindSocket, checkClaimable, SocketClaimError } from '../../server/socket-bind.js';
import { defineCommand, EXIT, UsageError } from '../define-command.js';

/** Tells the starter (startDaemon, on the pipe it gave as fd 3) that the socket is at its path; the pipe is closed after, so no pane inherits it. */
function sayPublished(): void {
  try {
    writeSync(3, 'published\n');
  } catch {
    /* the starter is gone (it timed out): nobody to tell */
  }
  try {
    closeSync(3);
  } catch {
    /* not open */
  }
}

export default defineCommand({
  name: 'server start',
  usage: 'castellan server start [--foreground] [--cols N] [--rows N] [--session NAME] [--restore | --no-restore] [-- COMMAND...]',
  summary: 'Start a server with no client attached; it restores the session\'s snapshot (see `castellan session snapshots`), else its first pane runs COMMAND or your shell.',
  details: '--no-restore starts fresh once; --restore restores even with [session] restore = "off". A COMMAND always starts fresh.',
  options: { foreground: { type: 'boolean' }, cols: { type: 'string' }, rows: { type: 'string' }, session: { type: 'string' }, restore: { type: 'boolean' }, 'no-restore': { type: 'boolean' } },
  run: async (ctx, { values, rest }) => {
    const num = (v: unknown, name: string) => {
      if (v === undefined) return undefined;
      const n = Number(v);
      if (!Number.isInteger(n) || n < 10 || n > 2000) throw new UsageError(`--${name} must be a whole number from 10 to 2000`);
      return n;
    };
    const cols = num(values.cols, 'cols');
    const rows = num(values.rows, 'rows');
    if (values.restore && values['no-restore']) throw new UsageError('--restore and --no-restore exclude each other');
    const restore = values['no-restore'] || ctx.restore === false ? false : values.restore ? true : undefined;
    if (values.foreground) {
      // Claim the socket before loading the server (or the API, via daemon.js): of several concurrent starters the losers exit
      // without loading it; the socket appears on its path once the server is ready (runServer publishes it).
      let bound;
      try {
        bound = await bindSocket(ctx.paths.socket);
      } catch (e) {
        if (!(e instanceof SocketClaimError)) throw e;
        ctx.err(`castellan: ${e.message}`);
        return EXIT.error;
      }
      // `new -d` (startDaemon until 'published') returns once the socket is at its path: put it there now, before the
      // server loads, and say so on fd 3. Connections wait, queued and paused, until the loaded server serves them.
      if (process.env.CASTELLAN_READY_FD === '3') {
        delete process.env.CASTELLAN_READY_FD;
        try {
          bound.publish();
        } catch (e) {
          bound.release();
          bound.server.close();
          if (!(e instanceof SocketClaimError)) throw e;
          ctx.err(`castellan: ${e.message}`);
          return EXIT.error;
        }
        sayPublished();
      }
      // Sessions started from now on (`new -d -s B` right after this one) wait, queued, to start in this process.
      const { claimHostDoor } = await import('../../server/host/index.js');
      const hostDoor = claimHostDoor(ctx.paths.stateDir, process.env);
      let claimed: Awaited<typeof hostDoor>;
      void hostDoor.then((d) => (claimed = d));
      // Stopped while the server is still loading: leave no socket behind.
      const early = () => {
        bound.release();
        claimed?.release();
        process.exit(1);
      };
      process.once('SIGTERM', early).once('SIGINT', early);
      try {
        const { runServer } = await import('../../server/main.js');
        await runServer({ paths: ctx.paths, cwd: ctx.cwd, version: ctx.version, cols, rows, command: rest.length ? rest : undefined, restore, bound, hostDoor });
      } catch (e) {
        bound.release();
        bound.server.close();
        void hostDoor.then((d) => (d?.release(), d?.server.close()));
        throw e;
      } finally {
        process.off('SIGTERM', early).off('SIGINT', early);
      }
      // Keep running: the server lives on its socket until stopped.
      await new Promise(() => {});
      return EXIT.ok;
    }
    // Refusals a background server would only write to its log are said here.
    try {
      await checkClaimable(ctx.paths.socket);
    } catch (e) {
      if (!(e instanceof SocketClaimError)) throw e;
      if (e.code === 'EALREADY') {
        ctx.out(`castellan: ${e.message}`);
        return EXIT.ok;
      }
      ctx.err(`castellan: ${e.message}`);
      return EXIT.error;
    }
    const { startDaemon } = await import('../../server/daemon.js');
    await startDaemon(ctx.paths, { cwd: ctx.cwd, cols, rows, command: rest.length ? rest : undefined, restore });
    ctx.out(`castellan: server started on ${ctx.paths.socket}`);
    return EXIT.ok;
  },
});
