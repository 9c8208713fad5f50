// `castellan session stop NAME`: stop a named session's server and its panes (restored at its next start, unless --forget).
import { resolvePaths } from '../../platform/paths.js';
import { defineCommand, UsageError } from '../define-command.js';
import { stopServer } from './server-stop.js';

export default defineCommand({
  name: 'session stop',
  usage: 'castellan session stop NAME [--forget]',
  summary: 'Stop the named session\'s server and every pane in it; its next start restores it (--forget deletes its snapshot).',
  positionals: true,
  options: { target: { type: 'string', short: 't' }, forget: { type: 'boolean' } },
  run: async (ctx, { positionals, values }) => {
    const names = values.target === undefined ? positionals : [values.target as string, ...positionals];
    if (names.length !== 1) throw new UsageError('expected one session NAME');
    const paths = resolvePaths({ session: names[0], env: ctx.env });
    return stopServer({ ...ctx, paths, sessionFlag: names[0] }, values.forget ? 'forget' : 'keep');
  },
});
