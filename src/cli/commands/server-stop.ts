// `castellan server stop`: end the server and its panes (keeping the session's snapshot, or --forget it); waits until the socket is gone.
import { NotRunningError } from '../../api/client.js';
import { dropSnapshot } from '../../restore/index.js';
import { type CliContext, defineCommand, EXIT } from '../define-command.js';
import { probeSocket } from '../../server/socket-bind.js';

/**
 * Stops the session's server. `keep`: its snapshot is restored at the next start; `forget`: deleted; `kill`: set aside,
 * not restored, kept a day (tmux's kill-session and kill-server mean it; `session restore` brings it back on purpose).
 */
export async function stopServer(ctx: CliContext, mode: 'keep' | 'forget' | 'kill'): Promise<number> {
  let api;
  try {
    api = await ctx.connect();
  } catch (e) {
    if (!(e instanceof NotRunningError)) throw e;
    // No server: --forget still drops what a start would restore.
    if (mode === 'forget') {
      ctx.out(dropSnapshot(ctx.paths) ? `castellan: no server running; snapshot of session ${ctx.paths.session} deleted` : 'castellan: no server running and no snapshot');
      return EXIT.ok;
    }
    if (mode === 'kill') {
      ctx.err(`castellan: can't find session: ${ctx.paths.session}`);
      return EXIT.notRunning;
    }
    throw e;
  }
  const params = mode === 'forget' ? { forget: true } : mode === 'kill' ? { kill: true } : {};
  const r = await api.request<{ snapshot?: string; kept_as?: string }>('server.stop', params, { timeoutMs: 8000 }).catch(() => undefined);
  api.close();
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline && (await probeSocket(ctx.paths.socket, 300))) await new Promise((r) => setTimeout(r, 25));
  if (mode === 'forget') dropSnapshot(ctx.paths);
  const name = ctx.paths.session;
  const snap =
    mode === 'forget'
      ? '; its snapshot is deleted'
      : mode === 'kill'
        ? r?.kept_as
          ? `; its snapshot is kept aside for a day (castellan session restore ${name} brings it back)`
          : ''
        : r?.snapshot === 'kept'
          ? `; session ${name} will be restored at the next start`
          : '';
  ctx.out(`castellan: ${mode === 'kill' ? `session ${name} killed` : 'server stopped'}${snap}`);
  return EXIT.ok;
}

export default defineCommand({
  name: 'server stop',
  usage: 'castellan server stop [--session NAME] [--forget]',
  summary: 'Stop the server: every pane\'s program is ended, attached clients exit. The next start restores the session; --forget deletes its snapshot.',
  options: { session: { type: 'string' }, forget: { type: 'boolean' } },
  run: (ctx, { values }) => stopServer(ctx, values.forget ? 'forget' : 'keep'),
});
