// theme.set: switch every attached client to another theme, live.
import { z } from 'zod';
import { defineMethod } from '../define-method.js';

export default defineMethod({
  name: 'theme.set',
  description: 'Switch the theme of every attached client (built-in or ~/.castellan/themes/NAME.toml). A theme with errors gives diagnostics; its bad roles fall back to the default theme.',
  params: z.object({ name: z.string().min(1).max(100) }).strict(),
  result: z.object({ theme: z.string(), diagnostics: z.array(z.string()) }),
  handler: ({ session }, p) => session.setTheme(p.name),
});
