// `castellan theme set NAME`: switch attached clients to a theme, live.
import { defineCommand, EXIT, UsageError } from '../define-command.js';

export default defineCommand({
  name: 'theme set',
  usage: 'castellan theme set NAME',
  summary: 'Switch every attached client to the theme NAME (default, light, high-contrast, or ~/.castellan/themes/NAME.toml).',
  positionals: true,
  run: async (ctx, { positionals }) => {
    if (positionals.length !== 1) throw new UsageError('expected one theme NAME');
    const api = await ctx.connect();
    try {
      const r = await api.request<{ theme: string; diagnostics: string[] }>('theme.set', { name: positionals[0] }, { timeoutMs: 5000 });
      for (const d of r.diagnostics) ctx.err(d);
      ctx.out(`castellan: theme ${r.theme}`);
      return r.theme === positionals[0] ? EXIT.ok : EXIT.error;
    } finally {
      api.close();
    }
  },
});
