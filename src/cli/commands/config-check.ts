// `castellan config check`: load every layer and the theme, check key bindings, report problems with file and line.
import { formatDiagnostic, loadConfig } from '../../config/load.js';
import { loadTheme } from '../../config/themes.js';
import { hookReport } from '../../hooks/report.js';
import { DEFAULT_BINDINGS } from '../../input/default-keymap.js';
import { buildKeymap } from '../../input/keymap.js';
import { defineCommand, EXIT } from '../define-command.js';

export default defineCommand({
  name: 'config check',
  usage: 'castellan config check [--json]',
  summary: 'Validate ~/.castellan/config.toml, castellan.toml and .castellan/local.toml (as seen from here) and the theme.',
  options: { json: { type: 'boolean' } },
  run: async (ctx, { values }) => {
    const loaded = loadConfig({ cwd: ctx.cwd, home: ctx.paths.home });
    const theme = loadTheme(loaded.config.ui.theme, { userDir: ctx.paths.userThemes });
    const keys = buildKeymap(DEFAULT_BINDINGS, loaded.config.keys ?? {});
    const keyFile = loaded.files.filter((f) => f.exists).map((f) => f.path).pop() ?? 'config';
    const hooks = hookReport(loaded, ctx.paths.trustFile);
    const diagnostics = [
      ...loaded.diagnostics,
      ...theme.diagnostics,
      ...hooks.diagnostics,
      ...keys.diagnostics.map((d) => ({ severity: d.severity, file: keyFile, path: d.key ? `keys."${d.key}"` : 'keys', message: d.message })),
    ];
    const errors = diagnostics.filter((d) => d.severity === 'error').length;
    if (values.json) {
      ctx.out(JSON.stringify({ project_root: loaded.projectRoot, files: loaded.files.map(({ text: _t, ...f }) => f), hooks: hooks.hooks, diagnostics, ok: errors === 0 }, null, 2));
    } else {
      for (const f of loaded.files) ctx.out(`${f.layer.padEnd(7)} ${f.path}${f.exists ? '' : '  (not present)'}`);
      ctx.out(`theme   ${theme.theme.name}`);
      // Which hooks run, and for the inert ones why not (a project file nobody trusted, or one that changed since).
      for (const h of hooks.hooks) {
        const what = `${h.event}${h.matcher ? ` [${h.matcher}]` : ''}: ${h.command}`.replace(/[\u0000-\u001f\u007f-\u009f]/g, '');
        ctx.out(`hook    ${h.status === 'active' ? 'active' : 'INERT '} ${what}  (${h.layer})${h.reason ? `\n          ${h.reason}` : ''}`);
      }
      if (diagnostics.length === 0) ctx.out('castellan: configuration OK');
      for (const d of diagnostics) ctx.out(formatDiagnostic(d as Parameters<typeof formatDiagnostic>[0]));
      if (diagnostics.length) ctx.out(`castellan: ${errors} error(s), ${diagnostics.length - errors} warning(s); the rest of each file is used`);
    }
    return errors ? EXIT.error : EXIT.ok;
  },
});
