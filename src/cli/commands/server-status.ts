// `castellan server status`: is a server running for this session (exit 0) or not (exit 3).
import { NotRunningError } from '../../api/client.js';
import { defineCommand, EXIT } from '../define-command.js';

export default defineCommand({
  name: 'server status',
  usage: 'castellan server status [--json] [--session NAME]',
  summary: 'Say whether a server runs for this session; exit 0 if it does, 3 if not.',
  options: { json: { type: 'boolean' }, session: { type: 'string' } },
  run: async (ctx, { values }) => {
    let api;
    try {
      api = await ctx.connect();
    } catch (e) {
      if (!(e instanceof NotRunningError)) throw e;
      if (values.json) ctx.out(JSON.stringify({ running: false, socket: ctx.paths.socket }));
      else ctx.out(`castellan: no server running (socket ${ctx.paths.socket})`);
      return EXIT.notRunning;
    }
    const ping = await api.request<Record<string, unknown>>('ping', {}, { timeoutMs: 5000 });
    const panes = await api.request<{ panes: unknown[] }>('pane.list', {}, { timeoutMs: 5000 });
    const windows = await api.request<{ windows: unknown[] }>('window.list', {}, { timeoutMs: 5000 });
    api.close();
    if (values.json) ctx.out(JSON.stringify({ running: true, ...ping, windows: windows.windows.length, panes: panes.panes.length }));
    else ctx.out(`castellan: server running (session ${ping.session}, pid ${ping.pid}, version ${ping.version}, ${windows.windows.length} window(s), ${panes.panes.length} pane(s), up ${Math.round(Number(ping.uptime_ms) / 1000)}s) on ${ping.socket}`);
    return EXIT.ok;
  },
});
