// `castellan session attach NAME`: attach to (or start) a named session; same as `castellan --session NAME`.
import { resolvePaths } from '../../platform/paths.js';
import { defineCommand, UsageError } from '../define-command.js';
import attach from './attach.js';

export default defineCommand({
  name: 'session attach',
  usage: 'castellan session attach NAME',
  summary: 'Attach to the named session, starting its server if none runs.',
  positionals: true,
  run: async (ctx, { positionals }) => {
    if (positionals.length !== 1) throw new UsageError('expected one session NAME');
    const paths = resolvePaths({ session: positionals[0], env: ctx.env });
    return attach.run({ ...ctx, paths, sessionFlag: positionals[0] }, { values: {}, positionals: [], rest: [] });
  },
});
