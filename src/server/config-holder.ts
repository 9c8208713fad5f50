// The server's current configuration and theme, reloadable, with diagnostics kept for the UI and `config check`.
import { formatDiagnostic, loadConfig, type Diagnostic, type LoadedConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { listThemes, loadTheme, type Theme } from '../config/themes.js';
import { readTrust } from '../config/trust.js';
import type { Paths } from '../platform/paths.js';

export class ConfigHolder {
  loaded!: LoadedConfig;
  theme!: Theme;
  diagnostics: Diagnostic[] = [];
  /** A theme chosen live (prefix T, theme.set) wins over the configured one until the server restarts. */
  private themeOverride: string | undefined;

  constructor(private readonly o: { cwd: string; paths: Paths; log(msg: string): void }) {
    this.reload();
  }

  get value(): Config {
    return this.loaded.config;
  }

  /** Reads every layer again; a bad file yields diagnostics and the last good values of the rest. */
  reload(): Diagnostic[] {
    this.loaded = loadConfig({ cwd: this.o.cwd, home: this.o.paths.home, trust: readTrust(this.o.paths.trustFile).data });
    const t = loadTheme(this.themeOverride ?? this.loaded.config.ui.theme, { userDir: this.o.paths.userThemes });
    this.theme = t.theme;
    this.diagnostics = [...this.loaded.diagnostics, ...t.diagnostics];
    for (const d of this.diagnostics) this.o.log(formatDiagnostic(d));
    return this.diagnostics;
  }

  setTheme(name: string): { theme: string; diagnostics: string[] } {
    const t = loadTheme(name, { userDir: this.o.paths.userThemes });
    const msgs = t.diagnostics.map(formatDiagnostic);
    // A theme that does not exist at all keeps the current one; a theme with bad roles is used with fallbacks.
    if (t.theme.name !== name && t.diagnostics.length) return { theme: this.theme.name, diagnostics: msgs };
    this.themeOverride = name;
    this.theme = t.theme;
    return { theme: t.theme.name, diagnostics: msgs };
  }

  /** What an attaching client needs: UI settings, key table, theme, the list of themes and config notices. */
  clientConfig(): Record<string, unknown> {
    return {
      ui: { ...this.value.ui, theme: this.theme.name },
      keys: this.value.keys,
      theme: this.theme,
      themes: listThemes({ userDir: this.o.paths.userThemes }).map((t) => t.name),
      notices: this.diagnostics.map((d) => ({ level: d.severity, message: formatDiagnostic(d) })),
      project_root: this.loaded.projectRoot,
    };
  }
}
