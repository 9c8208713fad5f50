// window.layout: arrange a window's panes in a preset layout (tmux select-layout), or the next/previous one.
import { z } from 'zod';
import { windowIdSchema } from '../../core/actions.js';
import { LAYOUT_NAMES } from '../../core/layout-presets.js';
import { defineMethod } from '../define-method.js';

export default defineMethod({
  name: 'window.layout',
  description: `Arrange a window's panes in a preset layout: ${LAYOUT_NAMES.join(', ')}; or "next"/"prev" in that cycle. The first pane is the main one. Unzooms.`,
  params: z.object({ window_id: windowIdSchema.optional(), layout: z.enum([...LAYOUT_NAMES, 'next', 'prev']) }).strict(),
  result: z.object({ window_id: z.string(), layout: z.enum(LAYOUT_NAMES) }),
  handler: ({ session }, p) => {
    const cycle = p.layout === 'next' || p.layout === 'prev' ? p.layout : undefined;
    const r = session.dispatch({ type: 'window.layout', ...(p.window_id ? { window: p.window_id } : {}), ...(cycle ? { cycle } : { name: p.layout as (typeof LAYOUT_NAMES)[number] }) });
    return { window_id: String(r.result?.window), layout: r.result?.layout as (typeof LAYOUT_NAMES)[number] };
  },
});
