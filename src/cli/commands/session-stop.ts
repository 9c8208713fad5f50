// `castellan session stop NAME`: stop a named session's server and its panes.
import { resolvePaths } from '../../platform/paths.js';
import { defineCommand, UsageError } from '../define-command.js';
import stop from './server-stop.js';

export default defineCommand({
  name: 'session stop',
  usage: 'castellan session stop NAME  (or, as tmux spells it: castellan kill-session -t NAME)',
  summary: 'Stop the named session\'s server and every pane in it.',
  positionals: true,
  options: { target: { type: 'string', short: 't' } },
  run: async (ctx, { positionals, values }) => {
    const names = values.target === undefined ? positionals : [values.target as string, ...positionals];
    if (names.length !== 1) throw new UsageError('expected one session NAME');
    const paths = resolvePaths({ session: names[0], env: ctx.env });
    return stop.run({ ...ctx, paths, sessionFlag: names[0] }, { values: {}, positionals: [], rest: [] });
  },
});
