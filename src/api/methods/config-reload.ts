// config.reload: read the configuration files again and apply what changed.
import { z } from 'zod';
import { defineMethod } from '../define-method.js';

export default defineMethod({
  name: 'config.reload',
  description:
    'Read the configuration layers again and apply them (the server also does this by itself when a layer file changes). [ui] and [keys] apply in every attached client at once, the rest from its next use; `notes` names changed settings that apply only to panes opened from now on (`ui.scrollback`, `session.shell`). Returns the layers\' diagnostics.',
  params: z.object({}).strict().optional(),
  result: z.object({ diagnostics: z.array(z.unknown()), notes: z.array(z.string()) }),
  handler: ({ session }) => session.reloadConfig(),
});
