// `castellan server stop`: end the server and its panes; waits until the socket is gone.
import { defineCommand, EXIT } from '../define-command.js';
import { probeSocket } from '../../server/socket-server.js';

export default defineCommand({
  name: 'server stop',
  usage: 'castellan server stop [--session NAME]',
  summary: 'Stop the server: every pane\'s program is ended, attached clients exit.',
  options: { session: { type: 'string' } },
  run: async (ctx) => {
    const api = await ctx.connect();
    await api.request('server.stop', {}, { timeoutMs: 5000 }).catch(() => undefined);
    api.close();
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline && (await probeSocket(ctx.paths.socket, 300))) await new Promise((r) => setTimeout(r, 25));
    ctx.out('castellan: server stopped');
    return EXIT.ok;
  },
});
