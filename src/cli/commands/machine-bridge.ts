// `castellan machine bridge`: the remote half of a machine connection, run by ssh; not meant to be typed.
import { runBridge } from '../../machines/index.js';
import { defineCommand } from '../define-command.js';

export default defineCommand({
  name: 'machine bridge',
  usage: 'castellan machine bridge [--session S]',
  summary: 'Bridge stdin/stdout to this user\'s castellan socket (what `ssh HOST castellan machine bridge` runs for another machine).',
  details: 'Prints one hello line (bridge version, capabilities, the server\'s ping), then copies lines both ways untouched.',
  options: { session: { type: 'string' } },
  run: async (ctx) => runBridge({ socket: ctx.paths.socket, version: ctx.version, stdin: process.stdin, stdout: process.stdout }),
});
