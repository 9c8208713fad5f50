// `castellan` / `castellan attach`: start the session's server if none runs, then attach this terminal.
import { resolvePaths } from '../../platform/paths.js';
import { probeSocket } from '../../server/socket-bind.js';
import { type CliContext, defineCommand, EXIT } from '../define-command.js';

/** tmux's `attach -t NAME` and `new -s NAME` name the session after the command; both mean --session NAME here. */
function forSession(ctx: CliContext, name: string | undefined): CliContext {
  if (name === undefined) return ctx;
  return { ...ctx, paths: resolvePaths({ session: name, env: ctx.env }), sessionFlag: name };
}

export default defineCommand({
  name: 'attach',
  usage: 'castellan [--session NAME] [--no-restore] [attach] [--window w2] [-t NAME | -s NAME] [-d]',
  summary: 'Attach this terminal to the session, starting its server if none runs: restored from its snapshot, else one window with one shell.',
  details: [
    'tmux spellings work: `castellan a -t NAME`, `castellan new -s NAME` (attaches if NAME already runs, where tmux',
    'would refuse), `castellan new -d -s NAME` (start it without attaching).',
    '  -t, --target NAME  the session to attach to (same as --session NAME)',
    '  -s, --name NAME    the same, as tmux\'s new-session spells it',
    '  -d, --detached     start the session\'s server if needed and return without attaching',
  ].join('\n'),
  options: {
    window: { type: 'string' },
    target: { type: 'string', short: 't' },
    name: { type: 'string', short: 's' },
    detached: { type: 'boolean', short: 'd' },
  },
  run: async (outer, { values }) => {
    const ctx = forSession(outer, (values.target ?? values.name) as string | undefined);
    // Attaching from inside one of this server's own panes would draw castellan inside itself.
    if (!values.detached && ctx.env.CASTELLAN_ENV === '1' && !ctx.sessionFlag && ctx.env.CASTELLAN_SOCKET === ctx.paths.socket) {
      ctx.err('castellan: already inside this castellan session (pane ' + (ctx.env.CASTELLAN_PANE_ID ?? '?') + '); use --session NAME for another one');
      return EXIT.usage;
    }
    if (!(await probeSocket(ctx.paths.socket))) {
      // Only when no server runs (as startDaemon): the snapshot store and its schemas are no attached client's business.
      const { restoreChoice } = await import('../restore-choice.js');
      const restore = await restoreChoice(ctx, { stdin: process.stdin, stdout: process.stdout });
      const { startDaemon } = await import('../../server/daemon.js');
      await startDaemon(ctx.paths, { cwd: ctx.cwd, cols: process.stdout.columns, rows: process.stdout.rows, restore });
    }
    if (values.detached) {
      ctx.out(`castellan: session ${ctx.paths.session} runs on ${ctx.paths.socket}`);
      return EXIT.ok;
    }
    // Before the client loads: React and its reconciler pick their production builds (a fraction of the development
    // builds' code and memory) from NODE_ENV when first imported, so the client is imported only now.
    process.env.NODE_ENV = 'production';
    const { attach } = await import('../../client/attach.js');
    return attach({ paths: ctx.paths, stdin: process.stdin, stdout: process.stdout, window: values.window as string | undefined });
  },
});
