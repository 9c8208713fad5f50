// `castellan session stop NAME`: stop a named session's server and its panes.
import { resolvePaths } from '../../platform/paths.js';
import { defineCommand, UsageError } from '../define-command.js';
import stop from './server-stop.js';

export default defineCommand({
  name: 'session stop',
  usage: 'castellan session stop NAME',
  summary: 'Stop the named session\'s server and every pane in it.',
  positionals: true,
  run: async (ctx, { positionals }) => {
    if (positionals.length !== 1) throw new UsageError('expected one session NAME');
    const paths = resolvePaths({ session: positionals[0], env: ctx.env });
    return stop.run({ ...ctx, paths, sessionFlag: positionals[0] }, { values: {}, positionals: [], rest: [] });
  },
});
