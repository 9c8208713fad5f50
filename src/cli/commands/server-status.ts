// `castellan server status`: is a server running for this session (exit 0) or not (exit 3).
import { NotRunningError } from '../../api/client.js';
import { platformReport, type PlatformReport } from '../../platform/proc/index.js';
import { defineCommand, EXIT } from '../define-command.js';

/** What this platform runs castellan with, and (once, here) what does not work as well on it as on Linux. */
export function platformLines(r: PlatformReport): string[] {
  const lines = [`castellan: platform ${r.platform} ${r.arch}, ${r.how}${r.forced ? ` (forced by CASTELLAN_PLATFORM_BACKEND=${r.forced})` : ''}`];
  for (const l of r.lacks) lines.push(`  - ${l}`);
  if (r.lacks.length) lines.push('  (docs/platforms.md: what to run to report a problem on this platform)');
  return lines;
}

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
      if (values.json) ctx.out(JSON.stringify({ running: false, socket: ctx.paths.socket, platform: platformReport() }));
      else {
        ctx.out(`castellan: no server running (socket ${ctx.paths.socket})`);
        for (const l of platformLines(platformReport())) ctx.out(l);
      }
      return EXIT.notRunning;
    }
    // What the running server reads processes with (its environment may force another backend than this CLI's); a
    // server older than this question says nothing, and this CLI's own report stands in.
    const ping = await api
      .request<Record<string, unknown>>('ping', { platform: true }, { timeoutMs: 5000 })
      .catch((e: unknown) => ((e as { code?: string }).code === 'invalid_params' ? api.request<Record<string, unknown>>('ping', {}, { timeoutMs: 5000 }) : Promise.reject(e)));
    const platform = (ping.platform as PlatformReport | undefined) ?? platformReport();
    delete ping.platform;
    const panes = await api.request<{ panes: unknown[] }>('pane.list', {}, { timeoutMs: 5000 });
    const windows = await api.request<{ windows: unknown[] }>('window.list', {}, { timeoutMs: 5000 });
    api.close();
    if (values.json) ctx.out(JSON.stringify({ running: true, ...ping, windows: windows.windows.length, panes: panes.panes.length, platform }));
    else {
      ctx.out(`castellan: server running (session ${ping.session}, pid ${ping.pid}, version ${ping.version}, ${windows.windows.length} window(s), ${panes.panes.length} pane(s), up ${Math.round(Number(ping.uptime_ms) / 1000)}s) on ${ping.socket}`);
      for (const l of platformLines(platform)) ctx.out(l);
    }
    return EXIT.ok;
  },
});
