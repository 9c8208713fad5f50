// `castellan kill-session [-t NAME]` / `kill-server`: as in tmux, the session ends for good (its snapshot kept aside a day).
import { resolvePaths } from '../../platform/paths.js';
import { defineCommand, UsageError } from '../define-command.js';
import { stopServer } from './server-stop.js';

export default defineCommand({
  name: 'kill-session',
  usage: 'castellan kill-session [-t NAME]   (kill-server: the current or --session one)',
  summary: 'End the session and every pane in it, as tmux does: it is not restored at the next start. Its last state is kept aside for a day: `castellan session snapshots` lists it, `castellan session restore NAME` brings it back.',
  positionals: true,
  options: { target: { type: 'string', short: 't' } },
  run: async (ctx, { positionals, values }) => {
    const names = values.target === undefined ? positionals : [values.target as string, ...positionals];
    if (names.length > 1) throw new UsageError('expected at most one session NAME');
    const c = names.length ? { ...ctx, paths: resolvePaths({ session: names[0], env: ctx.env }), sessionFlag: names[0] } : ctx;
    return stopServer(c, 'kill');
  },
});
