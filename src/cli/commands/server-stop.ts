// `castellan server stop`: end the server and its panes (keeping the session's snapshot, or --forget it); waits until the socket is gone.
import { NotRunningError } from '../../api/client.js';
import { dropSnapshot } from '../../restore/index.js';
import { defineCommand, EXIT } from '../define-command.js';
import { probeSocket } from '../../server/socket-bind.js';

export default defineCommand({
  name: 'server stop',
  usage: 'castellan server stop [--session NAME] [--forget]',
  summary: 'Stop the server: every pane\'s program is ended, attached clients exit. The next start restores the session; --forget deletes its snapshot.',
  options: { session: { type: 'string' }, forget: { type: 'boolean' } },
  run: async (ctx, { values }) => {
    const forget = !!values.forget;
    let api;
    try {
      api = await ctx.connect();
    } catch (e) {
      // No server: --forget still drops what a start would restore.
      if (e instanceof NotRunningError && forget) {
        ctx.out(dropSnapshot(ctx.paths) ? `castellan: no server running; snapshot of session ${ctx.paths.session} deleted` : 'castellan: no server running and no snapshot');
        return EXIT.ok;
      }
      throw e;
    }
    const r = await api.request<{ snapshot?: string }>('server.stop', forget ? { forget: true } : {}, { timeoutMs: 8000 }).catch(() => undefined);
    api.close();
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline && (await probeSocket(ctx.paths.socket, 300))) await new Promise((r) => setTimeout(r, 25));
    if (forget) dropSnapshot(ctx.paths);
    const snap = forget ? '; its snapshot is deleted' : r?.snapshot === 'kept' ? `; session ${ctx.paths.session} will be restored at the next start` : '';
    ctx.out(`castellan: server stopped${snap}`);
    return EXIT.ok;
  },
});
