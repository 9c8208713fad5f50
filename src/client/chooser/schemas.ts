// What the chooser reads of a session's window.list and pane.list answers, checked by zod (another session's server is another process).
import { z } from 'zod';

// Only the fields the chooser shows.
export const panesSchema = z.object({
  panes: z.array(z.object({
    pane_id: z.string().max(40),
    window_id: z.string().max(40),
    title: z.string().max(400),
    active: z.boolean(),
    exited: z.unknown().optional(),
    agent: z.object({ name: z.string().max(64).optional(), state: z.enum(['idle', 'working', 'blocked', 'done', 'unknown']), message: z.string().max(2000).optional(), hook_locked: z.boolean() }),
  })).max(10_000),
});
export const windowsSchema = z.object({ windows: z.array(z.object({ window_id: z.string().max(40), index: z.number(), name: z.string().max(400) })).max(10_000) });

