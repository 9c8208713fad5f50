// popup.open: tmux display-popup -E — a floating pty over a client's layout that closes when its program exits.
import { z } from 'zod';
import { paneIdSchema } from '../../core/actions.js';
import { popupSizeSchema } from '../../core/popup-size-schema.js';
import { ApiError } from '../errors.js';
import { defineMethod } from '../define-method.js';

export default defineMethod({
  name: 'popup.open',
  description: 'Open a popup on a client: `command` (argv; default the user\'s shell) runs in a real pty drawn centred over the layout, with a border and `title`; keys go to it until it exits (or popup.close / prefix u close it early, killing it). `width`/`height` are cells or "N%" of the terminal (default 80% x 75%). The client is `client_id`, else the caller\'s own, else one viewing `pane_id`\'s window, else the latest attached (not_attached when none). `cwd` defaults to `pane_id`\'s or the focused pane\'s directory. One popup per client (not_allowed while one is open). A popup is not a pane: not in the layout, not in snapshots, no badge; its program gets CASTELLAN_POPUP_ID instead of CASTELLAN_PANE_ID.',
  params: z
    .object({
      command: z.array(z.string().max(4096)).min(1).max(256).optional(),
      cwd: z.string().min(1).max(4096).optional(),
      width: popupSizeSchema.optional(),
      height: popupSizeSchema.optional(),
      title: z.string().max(200).optional(),
      client_id: z.string().regex(/^c\d{1,9}$/, 'client id must look like c1').optional(),
      pane_id: paneIdSchema.optional(),
    })
    .strict()
    .optional(),
  result: z.object({ popup_id: z.string(), client_id: z.string(), command: z.array(z.string()), cwd: z.string(), cols: z.number(), rows: z.number() }),
  handler: ({ session, conn }, p = {}) => {
    if (!session.popups) throw new ApiError('not_allowed', 'this server has no popups');
    return session.popups.open({
      client: p.client_id ?? conn.clientId,
      ...(p.pane_id ? { pane: p.pane_id } : {}),
      ...(p.command ? { command: p.command } : {}),
      ...(p.cwd ? { cwd: p.cwd } : {}),
      ...(p.width !== undefined ? { width: p.width } : {}),
      ...(p.height !== undefined ? { height: p.height } : {}),
      ...(p.title !== undefined ? { title: p.title } : {}),
    });
  },
});
