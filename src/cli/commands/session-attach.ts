// `castellan session attach NAME`: attach to (or start) a named session; same as `castellan new -s NAME`.
import { defineCommand, UsageError } from '../define-command.js';
import { forSession, openSession } from './attach.js';

export default defineCommand({
  name: 'session attach',
  usage: 'castellan session attach NAME',
  summary: 'Attach to the named session, starting its server if none runs.',
  positionals: true,
  run: async (ctx, { positionals }) => {
    if (positionals.length !== 1) throw new UsageError('expected one session NAME');
    return openSession(forSession(ctx, positionals[0]), { create: true });
  },
});
