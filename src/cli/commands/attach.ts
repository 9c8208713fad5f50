// `castellan` / `castellan attach`: start the session's server if none runs, then attach this terminal.
import { attach } from '../../client/attach.js';
import { startDaemon } from '../../server/daemon.js';
import { probeSocket } from '../../server/socket-bind.js';
import { defineCommand, EXIT } from '../define-command.js';
import { restoreChoice } from '../restore-choice.js';

export default defineCommand({
  name: 'attach',
  usage: 'castellan [--session NAME] [--no-restore] [attach] [--window w2]',
  summary: 'Attach this terminal to the session, starting its server if none runs: restored from its snapshot, else one window with one shell.',
  options: { window: { type: 'string' } },
  run: async (ctx, { values }) => {
    // Attaching from inside one of this server's own panes would draw castellan inside itself.
    if (ctx.env.CASTELLAN_ENV === '1' && !ctx.sessionFlag && ctx.env.CASTELLAN_SOCKET === ctx.paths.socket) {
      ctx.err('castellan: already inside this castellan session (pane ' + (ctx.env.CASTELLAN_PANE_ID ?? '?') + '); use --session NAME for another one');
      return EXIT.usage;
    }
    if (!(await probeSocket(ctx.paths.socket))) {
      const restore = await restoreChoice(ctx, { stdin: process.stdin, stdout: process.stdout });
      await startDaemon(ctx.paths, { cwd: ctx.cwd, cols: process.stdout.columns, rows: process.stdout.rows, restore });
    }
    process.env.NODE_ENV = 'production';
    return attach({ paths: ctx.paths, stdin: process.stdin, stdout: process.stdout, window: values.window as string | undefined });
  },
});
