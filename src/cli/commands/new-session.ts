// `castellan` / `castellan new` (tmux: new-session): start the session's server if none runs, then attach this terminal.
import { defineCommand } from '../define-command.js';
import { forSession, openSession } from './attach.js';

export default defineCommand({
  name: 'new',
  usage: 'castellan [--session NAME] [--no-restore] [new] [-s NAME] [-d] [--window w2]',
  summary: 'Attach this terminal to the session, starting its server if none runs: restored from its snapshot, else one window with one shell.',
  details: [
    'tmux spellings work: `castellan new -s NAME` (attaches if NAME already runs, where tmux would refuse),',
    '`castellan new -d -s NAME` (start it without attaching). `castellan attach` / `castellan a -t NAME` only attach.',
    '  -s, --name NAME    the session (same as --session NAME)',
    '  -t, --target NAME  the same',
    '  -d, --detached     start the session\'s server if needed and return without attaching',
  ].join('\n'),
  options: {
    window: { type: 'string' },
    target: { type: 'string', short: 't' },
    name: { type: 'string', short: 's' },
    detached: { type: 'boolean', short: 'd' },
  },
  run: (outer, { values }) =>
    openSession(forSession(outer, (values.name ?? values.target) as string | undefined), { create: true, detached: !!values.detached, window: values.window as string | undefined }),
});
