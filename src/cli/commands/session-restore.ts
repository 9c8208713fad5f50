// `castellan session restore NAME`: bring back a killed session, or the snapshot a --no-restore start set aside.
import { bringBack } from '../../restore/index.js';
import { resolvePaths } from '../../platform/paths.js';
import { probeSocket } from '../../server/socket-bind.js';
import { defineCommand, EXIT, UsageError } from '../define-command.js';

export default defineCommand({
  name: 'session restore',
  usage: 'castellan session restore [NAME] [--file FILE]',
  summary: 'Make the newest killed or replaced snapshot of the session (or --file, as `session snapshots` lists it) the one its next start restores, then start it detached.',
  positionals: true,
  options: { file: { type: 'string' }, target: { type: 'string', short: 't' } },
  run: async (ctx, { positionals, values }) => {
    const names = values.target === undefined ? positionals : [values.target as string, ...positionals];
    if (names.length > 1) throw new UsageError('expected at most one session NAME');
    const paths = names.length ? resolvePaths({ session: names[0], env: ctx.env }) : ctx.paths;
    if (await probeSocket(paths.socket)) {
      ctx.err(`castellan: session ${paths.session} is running; stop it first (castellan session stop ${paths.session})`);
      return EXIT.error;
    }
    const r = bringBack(paths, values.file as string | undefined);
    if (!r.ok) {
      ctx.err(`castellan: ${r.why}`);
      return EXIT.error;
    }
    const { startDaemon } = await import('../../server/daemon.js');
    await startDaemon(paths, { cwd: ctx.cwd, restore: true });
    ctx.out(`castellan: session ${paths.session} restored from ${r.from}; castellan a -t ${paths.session} attaches`);
    return EXIT.ok;
  },
});
