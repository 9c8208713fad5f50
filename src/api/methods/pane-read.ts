// pane.read: the visible screen, or the scrollback (all of it, or the last N lines), plain or with colours.
import { z } from 'zod';
import { paneIdSchema } from '../../core/actions.js';
import { defineMethod } from '../define-method.js';

export default defineMethod({
  name: 'pane.read',
  description: 'Read a pane: `source: "screen"` (default) is the visible screen; `"scrollback"` is history plus screen. `lines` keeps the last N lines; `ansi: true` keeps colours as SGR sequences.',
  params: z
    .object({
      pane_id: paneIdSchema,
      source: z.enum(['screen', 'scrollback']).default('screen'),
      lines: z.number().int().min(1).max(1_000_000).optional(),
      ansi: z.boolean().default(false),
    })
    .strict(),
  result: z.object({ pane_id: z.string(), lines: z.array(z.string()), text: z.string() }),
  handler: ({ session }, p) => {
    // Scrollback without `lines` is all of it (the screen keeps at most ui.scrollback lines of history), not one screenful.
    const lines = p.lines ?? (p.source === 'scrollback' ? Number.MAX_SAFE_INTEGER : undefined);
    const out = session.readPane(p.pane_id, { lines, ansi: p.ansi, source: p.source === 'scrollback' ? 'all' : 'screen' });
    return { pane_id: p.pane_id, lines: out, text: out.join('\n') };
  },
});
