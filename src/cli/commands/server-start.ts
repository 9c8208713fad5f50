// `castellan server start`: a server with no client (for scripts and CI); --foreground runs it in this process.
import { startDaemon } from '../../server/daemon.js';
import { probeSocket } from '../../server/socket-server.js';
import { defineCommand, EXIT, UsageError } from '../define-command.js';

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
      const { runServer } = await import('../../server/main.js');
      try {
        await runServer({ paths: ctx.paths, cwd: ctx.cwd, version: ctx.version, cols, rows, command: rest.length ? rest : undefined, restore });
      } catch (e) {
        if ((e as { code?: string }).code === 'EALREADY') {
          ctx.err(`castellan: ${(e as Error).message}`);
          return EXIT.error;
        }
        throw e;
      }
      // Keep running: the server lives on its socket until stopped.
      await new Promise(() => {});
      return EXIT.ok;
    }
    if (await probeSocket(ctx.paths.socket)) {
      ctx.out(`castellan: a server is already running on ${ctx.paths.socket}`);
      return EXIT.ok;
    }
    await startDaemon(ctx.paths, { cwd: ctx.cwd, cols, rows, command: rest.length ? rest : undefined, restore });
    ctx.out(`castellan: server started on ${ctx.paths.socket}`);
    return EXIT.ok;
  },
});
