// `castellan config check`: load every layer and the theme, check key bindings, report problems with file and line.
import { loadAgents } from '../../config/agents.js';
import { formatDiagnostic, loadConfig, type Diagnostic } from '../../config/load.js';
import { loadTheme } from '../../config/themes.js';
import { describeHook, hookReport } from '../../hooks/report.js';
import { loadPolicy } from '../../hooks/policy-load.js';
import { readTrust } from '../../config/trust.js';
import { harnessMatrix, unsupportedStages, type MatrixStage } from '../../integrations/matrix.js';
import { DEFAULT_BINDINGS } from '../../input/default-keymap.js';
import { buildKeymap } from '../../input/keymap.js';
import { defineCommand, EXIT } from '../define-command.js';

/** Harnesses that never fire a governance hook's event (from the harness parity matrix). */
function notFiredBy(event: string): string[] {
  return harnessMatrix()
    .filter((r) => (r.stages[event as MatrixStage]?.via.length ?? 1) === 0)
    .map((r) => r.harness);
}

/** Agent definitions with hooks their agent never fires: a warning each, instead of hooks that silently never run. */
function agentStageDiagnostics(cwd: string, home: string, trustFile: string): Diagnostic[] {
  const { agents } = loadAgents({ cwd, home, trust: readTrust(trustFile).data });
  const out: Diagnostic[] = [];
  for (const a of agents) {
    if (!a.hooksValid) continue;
    const types = Object.keys(a.hooks).filter((t) => (a.hooks as Record<string, unknown[] | undefined>)[t]?.length) as MatrixStage[];
    for (const u of unsupportedStages(a.kind, types)) {
      out.push({ severity: 'warning', file: a.file, path: `hooks.${u.stage}`, message: `${a.kind} agents never fire ${u.stage}, so these hooks will not run${u.note ? ` (${u.note})` : ''}` });
    }
  }
  return out;
}

export default defineCommand({
  name: 'config check',
  usage: 'castellan config check [--json]',
  summary: 'Validate ~/.castellan/config.toml, castellan.toml and .castellan/local.toml (as seen from here) and the theme.',
  options: { json: { type: 'boolean' } },
  run: async (ctx, { values }) => {
    const loaded = loadConfig({ cwd: ctx.cwd, home: ctx.paths.home, trust: readTrust(ctx.paths.trustFile).data });
    const theme = loadTheme(loaded.config.ui.theme, { userDir: ctx.paths.userThemes });
    const keys = buildKeymap(DEFAULT_BINDINGS, loaded.config.keys ?? {});
    const keyFile = loaded.files.filter((f) => f.exists).map((f) => f.path).pop() ?? 'config';
    const hooks = hookReport(loaded, ctx.paths.trustFile);
    const diagnostics = [
      ...loaded.diagnostics,
      ...agentStageDiagnostics(ctx.cwd, ctx.paths.home, ctx.paths.trustFile),
      ...theme.diagnostics,
      ...hooks.diagnostics,
      ...keys.diagnostics.map((d) => ({ severity: d.severity, file: keyFile, path: d.key ? `keys."${d.key}"` : 'keys', message: d.message })),
    ];
    // A policy that cannot be used as written denies every tool call (policy-load.ts): that is an error however it came.
    const policy = loadPolicy(loaded);
    const errors = diagnostics.filter((d) => d.severity === 'error').length + (policy.broken && !diagnostics.some((d) => d.severity === 'error') ? 1 : 0);
    if (values.json) {
      const rows = hooks.hooks.map((h) => ({ ...h, not_fired_by: notFiredBy(h.event) }));
      const governance = { fails_closed: policy.broken !== undefined, problems: policy.problems };
      ctx.out(JSON.stringify({ project_root: loaded.projectRoot, files: loaded.files.map(({ text: _t, ...f }) => f), hooks: rows, governance, diagnostics, ok: errors === 0 }, null, 2));
    } else {
      for (const f of loaded.files) ctx.out(`${f.layer.padEnd(7)} ${f.path}${f.exists ? '' : '  (not present)'}`);
      ctx.out(`theme   ${theme.theme.name}`);
      ctx.out(policy.broken ? `policy  FAILS CLOSED: every tool call is denied until these are fixed:\n${policy.problems.map((p) => `          ${p}`).join('\n')}` : 'policy  ok');
      // Which hooks run, and for the inert ones why not (a project file nobody trusted, or one that changed since).
      for (const h of hooks.hooks) {
        const what = describeHook(h);
        ctx.out(`hook    ${h.status === 'active' ? 'active' : 'INERT '} ${what}  (${h.layer})${h.reason ? `\n          ${h.reason}` : ''}`);
        // Where the stage never fires, say so (castellan integrations matrix has the whole picture).
        const never = notFiredBy(h.event);
        if (never.length) ctx.out(`          never fired by: ${never.join(', ')} (castellan integrations matrix)`);
      }
      if (diagnostics.length === 0) ctx.out('castellan: configuration OK');
      for (const d of diagnostics) ctx.out(formatDiagnostic(d as Parameters<typeof formatDiagnostic>[0]));
      if (diagnostics.length) ctx.out(`castellan: ${errors} error(s), ${diagnostics.length - errors} warning(s); the rest of each file is used`);
    }
    return errors ? EXIT.error : EXIT.ok;
  },
});
