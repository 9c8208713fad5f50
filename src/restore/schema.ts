// The snapshot on disk: a zod schema (version 1), its limits, and the types the rest of src/restore uses.
import { z } from 'zod';
import { panesOf } from '../core/layout.js';
import type { LayoutNode } from '../core/types.js';
import { LIMITS, SNAPSHOT_VERSION } from './limits.js';

export { LIMITS, SNAPSHOT_VERSION };

const text = (max: number = LIMITS.text) => z.string().max(max);
const argv = z.array(text(LIMITS.arg)).max(LIMITS.argv);
const paneId = z.string().regex(/^w\d{1,6}:p\d{1,6}$/);
const windowId = z.string().regex(/^w\d{1,6}$/);
/** Agent session ids end up in an argv: only plain id characters, never something that reads as a flag. */
export const sessionIdSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/);

// z.lazy recursion is bounded by checkDepth before parsing: a 10^6-deep tree must not blow the stack.
const layout: z.ZodType<LayoutNode> = z.lazy(() =>
  z.union([
    z.object({ kind: z.literal('leaf'), pane: paneId }).strict(),
    z.object({ kind: z.literal('split'), axis: z.enum(['row', 'col']), ratio: z.number().min(0.01).max(0.99), a: layout, b: layout }).strict(),
  ]),
);

export const paneSnapshotSchema = z.object({
  id: paneId,
  name: text(200).optional(),
  /** The pane's own command, as castellan launched it. */
  command: argv.min(1),
  /** Where the foreground program was when the snapshot was taken. */
  cwd: text(),
  /** shell: the pane's own shell was in front; agent: a known agent; program: something else; exited: its program had ended. */
  kind: z.enum(['shell', 'agent', 'program', 'exited']),
  /** The foreground program's argv (agents and programs). */
  foreground: argv.optional(),
  /** The foreground program ran inside the pane's shell (so it comes back typed into a fresh one), or was the pane's own command. */
  inShell: z.boolean().optional(),
  agent: z.object({ name: text(64), sessionId: sessionIdSchema.optional(), sessionFrom: z.enum(['hook', 'files']).optional() }).strict().optional(),
  /** Started from an agent definition (CASTELLAN_AGENT_TYPE). */
  definition: text(128).optional(),
  parent: paneId.optional(),
  episode: z.object({ goalId: z.string().regex(/^[A-Za-z0-9_.:-]{1,128}$/), depth: z.number().int().min(0).max(64), rlm: z.boolean() }).strict().optional(),
  /** gzip of the history lines (SGR-styled, joined with \n), base64. */
  history: z.string().max(LIMITS.historyB64Chars).regex(/^[A-Za-z0-9+/=]*$/).optional(),
  historyLines: z.number().int().min(0).max(LIMITS.historyLines).optional(),
}).strict();

export const windowSnapshotSchema = z.object({
  id: windowId,
  name: text(200).optional(),
  layout,
  active: paneId,
  zoomed: paneId.optional(),
  panes: z.array(paneSnapshotSchema).min(1).max(LIMITS.panesPerWindow),
}).strict();

export const snapshotSchema = z.object({
  version: z.literal(SNAPSHOT_VERSION),
  session: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/),
  savedAt: z.number().int().nonnegative(),
  /** Server that wrote it (for `session snapshots`). */
  pid: z.number().int().nonnegative().optional(),
  cwd: text(),
  size: z.object({ cols: z.number().int().min(10).max(2000), rows: z.number().int().min(4).max(1000) }).strict(),
  currentWindow: windowId.optional(),
  windows: z.array(windowSnapshotSchema).min(1).max(LIMITS.windows),
}).strict();

export type Snapshot = z.infer<typeof snapshotSchema>;
export type WindowSnapshot = z.infer<typeof windowSnapshotSchema>;
export type PaneSnapshot = z.infer<typeof paneSnapshotSchema>;

/** What zod cannot say: each window's layout holds exactly its panes, ids are unique, active/zoomed/current exist. */
export function inconsistency(s: Snapshot): string | undefined {
  const seen = new Set<string>();
  for (const w of s.windows) {
    if (seen.has(w.id)) return `window ${w.id} appears twice`;
    seen.add(w.id);
    const leaves = panesOf(w.layout);
    const ids = w.panes.map((p) => p.id);
    if (leaves.length !== ids.length || new Set(ids).size !== ids.length || leaves.some((l) => !ids.includes(l))) return `window ${w.id}: layout and panes disagree`;
    // Ids are unique, not tied to their window: a pane moved by break-pane/join-pane keeps the id it was born with.
    if (ids.some((id) => seen.has(id))) return `window ${w.id}: a pane id is repeated`;
    for (const id of ids) seen.add(id);
    if (!ids.includes(w.active) || (w.zoomed && !ids.includes(w.zoomed))) return `window ${w.id}: active or zoomed pane is not in it`;
  }
  if (s.currentWindow && !s.windows.some((w) => w.id === s.currentWindow)) return `current window ${s.currentWindow} does not exist`;
  return undefined;
}
