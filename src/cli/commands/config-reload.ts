// `castellan config reload`: make the running server read its config files again (it also does when they change).
import { formatDiagnostic, type Diagnostic } from '../../config/load.js';
import { defineCommand, EXIT } from '../define-command.js';

export default defineCommand({
  name: 'config reload',
  usage: 'castellan config reload [--json]',
  summary: 'Make the running server read its config files again and apply them; prints problems and what applies only to new panes.',
  details: [
    'The server also reloads by itself a moment after a layer file changes (~/.castellan/config.toml, castellan.toml,',
    '.castellan/local.toml). [ui] and [keys] apply in every attached client at once; hooks, governance, limits, agents',
    'and [session] new_pane_cwd from their next use; ui.scrollback and session.shell only for panes opened afterwards.',
    'The same command at the prompt (prefix :) is config.reload. Exit 1 if a file has errors (the last good values stay).',
  ].join('\n'),
  options: { json: { type: 'boolean' } },
  run: async (ctx, { values }) => {
    const api = await ctx.connect();
    try {
      const r = await api.request<{ diagnostics: Diagnostic[]; notes: string[] }>('config.reload', {}, { timeoutMs: 10_000 });
      const errors = r.diagnostics.filter((d) => d.severity === 'error').length;
      if (values.json) ctx.out(JSON.stringify(r));
      else {
        for (const d of r.diagnostics) ctx.err(formatDiagnostic(d));
        for (const n of r.notes) ctx.out(`note: ${n}`);
        ctx.out(`castellan: config reloaded${r.diagnostics.length ? ` with ${r.diagnostics.length} problem(s)` : ''}`);
      }
      return errors ? EXIT.error : EXIT.ok;
    } finally {
      api.close();
    }
  },
});
