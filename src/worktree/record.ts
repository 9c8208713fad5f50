// A worktree castellan made for an agent: the record kept on disk, its zod schema and limits.
import { z } from 'zod';

const text = (max = 4096) => z.string().max(max);

export const recordSchema = z
  .object({
    id: z.string().regex(/^[a-f0-9]{4,16}$/),
    path: text(),
    branch: text(200),
    /** The repository's main working tree (where the base branch usually is checked out). */
    repo: text(),
    /** The git common dir (shared by all worktrees of the repository): the key for the merge lock. */
    commonDir: text(),
    /** The branch the worktree was made from ('' when the repository was on a detached HEAD). */
    base: text(200),
    baseCommit: z.string().regex(/^[0-9a-f]{40,64}$/),
    agent: text(64).optional(),
    /** The pane working in it, while one does. */
    pane: z.string().regex(/^w\d{1,6}:p\d{1,6}$/).optional(),
    parent: z.string().regex(/^w\d{1,6}:p\d{1,6}$/).optional(),
    createdAt: z.number().int().nonnegative(),
  })
  .strict();

export type WorktreeRecord = z.infer<typeof recordSchema>;

export const storeSchema = z.object({ version: z.literal(1), worktrees: z.array(recordSchema).max(1000) }).strict();

/** The live change summary a border shows. */
export interface ChangeSummary {
  /** Files that differ from the base commit (committed on the branch or not, untracked included). */
  files: number;
  added: number;
  removed: number;
  /** Commits on the branch that its base does not have. */
  ahead: number;
  /** Files not yet committed on the branch. */
  uncommitted: number;
  /** The worktree's directory is gone (deleted by hand). */
  missing?: boolean;
  at: number;
}

/** What the marker in the worktree's git admin dir says: read by governance from any process, any cwd. */
export const markerSchema = z.object({ castellan: z.literal(1), branch: text(200), base: text(200), path: text(), id: z.string().max(16) }).strict();
export type Marker = z.infer<typeof markerSchema>;
export const MARKER_FILE = 'castellan-worktree.json';
