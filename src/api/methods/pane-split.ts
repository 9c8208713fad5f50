// pane.split: open a new pane beside an existing one, running a shell or a given command.
import { z } from 'zod';
import { directionSchema, paneIdSchema } from '../../core/actions.js';
import { defineMethod } from '../define-method.js';

export default defineMethod({
  name: 'pane.split',
  description: 'Split a pane (default: the active pane of the current window). The new pane runs `command` (argv) or the user\'s shell.',
  params: z
    .object({
      pane_id: paneIdSchema.optional(),
      direction: directionSchema.default('right'),
      command: z.array(z.string()).min(1).optional(),
      cwd: z.string().optional(),
      name: z.string().max(200).optional(),
      env: z.record(z.string(), z.string()).optional(),
      percent: z.number().int().min(1).max(99).optional(),
      focus: z.boolean().default(true),
    })
    .strict(),
  result: z.object({ pane_id: z.string(), window_id: z.string() }),
  handler: ({ session }, p) => {
    const r = session.dispatch({
      type: 'pane.split',
      pane: p.pane_id,
      direction: p.direction,
      command: p.command,
      cwd: p.cwd,
      name: p.name,
      env: p.env,
      percent: p.percent,
      detached: !p.focus,
    });
    return { pane_id: String(r.result?.pane), window_id: String(r.result?.window) };
  },
});
