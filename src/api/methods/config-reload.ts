// config.reload: read the configuration files again and apply what changed.
import { z } from 'zod';
import { defineMethod } from '../define-method.js';

export default defineMethod({
  name: 'config.reload',
  description: 'Reload the configuration layers; returns their diagnostics.',
  params: z.object({}).strict().optional(),
  result: z.object({ diagnostics: z.array(z.unknown()) }),
  handler: ({ session }) => session.reloadConfig(),
});
