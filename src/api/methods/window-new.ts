// window.new: open a new window running a shell or a given command.
import { z } from 'zod';
import { defineMethod } from '../define-method.js';

export default defineMethod({
  name: 'window.new',
  description: 'Open a new window; its pane runs `command` (argv) or the user\'s shell. `focus: false` leaves clients where they are.',
  params: z
    .object({
      name: z.string().max(200).optional(),
      command: z.array(z.string()).min(1).optional(),
      cwd: z.string().optional(),
      env: z.record(z.string(), z.string()).optional(),
      focus: z.boolean().default(true),
    })
    .strict()
    .optional(),
  result: z.object({ window_id: z.string(), pane_id: z.string() }),
  handler: ({ session }, p) => {
    const r = session.dispatch({ type: 'window.new', name: p?.name, command: p?.command, cwd: p?.cwd, env: p?.env, detached: p ? !p.focus : false });
    return { window_id: String(r.result?.window), pane_id: String(r.result?.pane) };
  },
});
