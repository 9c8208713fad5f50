// The one action vocabulary: keys, CLI commands and socket methods all become these, checked by zod.
import { z } from 'zod';
import { PANE_ID } from '../platform/pane-id.js';
import { NAME_MAX, RESIZE_CELLS_MAX, WINDOW_INDEX_MAX } from './action-limits.js';
import { LAYOUT_NAMES } from './layout-presets.js';
import { AGENT_SOURCES, AGENT_STATES, type EpisodeLimits } from './types.js';

export const paneIdSchema = z.string().regex(PANE_ID, 'pane id must look like w1:p1');
export const windowIdSchema = z.string().regex(/^w\d+$/, 'window id must look like w1');
export const directionSchema = z.enum(['left', 'right', 'up', 'down']);
export const agentStateSchema = z.enum(AGENT_STATES);
export const agentSourceSchema = z.enum(AGENT_SOURCES);
export const goalIdSchema = z.string().regex(/^[A-Za-z0-9_.:-]{1,128}$/, 'goal id must be 1-128 letters, digits, "_", ".", ":" or "-"');

const argv = z.array(z.string()).min(1);

/** Fields shared by actions that target a pane; when `pane` is omitted the acting client's focused pane is used. */
const paneTarget = { pane: paneIdSchema.optional() };

export const actionSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('pane.split'),
    ...paneTarget,
    direction: directionSchema.default('right'),
    command: argv.optional(),
    cwd: z.string().optional(),
    name: z.string().max(NAME_MAX).optional(),
    env: z.record(z.string(), z.string()).optional(),
    /** Share of the split given to the new pane, 1-99 (percent). */
    percent: z.number().int().min(1).max(99).optional(),
    /** Keep focus on the original pane. */
    detached: z.boolean().optional(),
    parent: paneIdSchema.optional(),
    /** Open a sub-harness pane of the target (which must be in a recursive episode): grouped with it, inheriting its goal. */
    subHarness: z.boolean().optional(),
  }),
  z.object({ type: z.literal('pane.close'), ...paneTarget }),
  z.object({
    type: z.literal('pane.focus'),
    ...paneTarget,
    direction: directionSchema.optional(),
    cycle: z.enum(['next', 'prev', 'last']).optional(),
  }),
  z.object({
    type: z.literal('pane.resize'),
    ...paneTarget,
    direction: directionSchema,
    cells: z.number().int().min(1).max(RESIZE_CELLS_MAX).default(1),
    /** A border drag: move the border between `pane` and this pane (they touch), not the one tmux's keys would pick. */
    across: paneIdSchema.optional(),
  }),
  z.object({ type: z.literal('pane.zoom'), ...paneTarget, mode: z.enum(['toggle', 'on', 'off']).default('toggle') }),
  z.object({
    type: z.literal('pane.swap'),
    ...paneTarget,
    with: z.union([paneIdSchema, z.enum(['next', 'prev']), directionSchema]).default('next'),
  }),
  z.object({ type: z.literal('pane.rename'), ...paneTarget, name: z.string().max(NAME_MAX) }),
  /** tmux break-pane: the pane leaves its window for a new one of its own (its id stays). */
  z.object({ type: z.literal('pane.break'), ...paneTarget, name: z.string().max(NAME_MAX).optional(), detached: z.boolean().optional() }),
  /** tmux join-pane: `pane` (the source) moves next to `target` (default: the focused pane), splitting it. */
  z.object({ type: z.literal('pane.join'), pane: paneIdSchema, target: paneIdSchema.optional(), direction: directionSchema.default('right'), detached: z.boolean().optional() }),
  /** tmux respawn-pane: run an exited pane's command again in its cwd; `kill` ends a running one first. */
  z.object({ type: z.literal('pane.respawn'), ...paneTarget, kill: z.boolean().optional() }),
  z.object({
    type: z.literal('window.new'),
    name: z.string().max(NAME_MAX).optional(),
    command: argv.optional(),
    cwd: z.string().optional(),
    env: z.record(z.string(), z.string()).optional(),
    detached: z.boolean().optional(),
  }),
  z.object({
    type: z.literal('window.select'),
    window: windowIdSchema.optional(),
    index: z.number().int().min(0).max(WINDOW_INDEX_MAX).optional(),
    relative: z.enum(['next', 'prev', 'last']).optional(),
  }),
  z.object({ type: z.literal('window.rename'), window: windowIdSchema.optional(), name: z.string().max(NAME_MAX) }),
  z.object({ type: z.literal('window.close'), window: windowIdSchema.optional() }),
  z.object({ type: z.literal('window.synchronize'), window: windowIdSchema.optional(), mode: z.enum(['toggle', 'on', 'off']).default('toggle') }),
  z.object({
    type: z.literal('window.layout'),
    window: windowIdSchema.optional(),
    /** A preset, or the next/previous one after the window's current preset. */
    name: z.enum(LAYOUT_NAMES).optional(),
    cycle: z.enum(['next', 'prev']).optional(),
  }),
  /** tmux rotate-window: every pane moves one place in layout order (down: to the next place); focus stays in place. */
  z.object({ type: z.literal('window.rotate'), window: windowIdSchema.optional(), direction: z.enum(['up', 'down']).default('down') }),
  /** tmux select-layout -E (prefix E): every split of the window shares its space evenly. */
  z.object({ type: z.literal('window.spread'), window: windowIdSchema.optional() }),
  /** tmux move-window -t N (prefix .): the window takes place N in the bar (windows stay numbered 1..N). */
  z.object({ type: z.literal('window.move'), window: windowIdSchema.optional(), index: z.number().int().min(1).max(WINDOW_INDEX_MAX) }),
  z.object({
    type: z.literal('agent.report'),
    pane: paneIdSchema,
    agent: z.string().min(1).max(64),
    state: agentStateSchema,
    source: agentSourceSchema.default('api'),
    message: z.string().max(2000).optional(),
    seq: z.number().int().nonnegative().optional(),
    sessionId: z.string().max(200).optional(),
    /** The agent's own arguments, for an agent whose process title hides them (pi). */
    args: z.array(z.string().max(4096)).max(64).optional(),
    /** Sent by castellan's own integration of an agent known to leave states unreported: the screen may correct it. */
    integration: z.boolean().optional(),
  }),
  z.object({ type: z.literal('agent.reset'), ...paneTarget }),
  z.object({ type: z.literal('agent.wait_mark'), ...paneTarget, on: z.boolean().optional() }),
  /** Marks a pane as the root of a (recursive) episode: `castellan run --rlm`. */
  z.object({ type: z.literal('episode.start'), pane: paneIdSchema, goalId: goalIdSchema, rlm: z.boolean().default(true) }),
  /** The episode's program ended: its sub-harness children are closed (unless limits.keep_children). */
  z.object({ type: z.literal('episode.end'), pane: paneIdSchema }),
  /** Review the pane's worktree (prefix D): the server opens `castellan review` for it (src/worktree/open-review.ts), never the reducer. */
  z.object({ type: z.literal('worktree.review'), ...paneTarget }),
]);

export type Action = z.input<typeof actionSchema>;
export type ActionType = Action['type'];
export type ActionOf<T extends ActionType> = Extract<Action, { type: T }>;

/** Actions the runtime itself feeds to the reducer (pty exits, detection, titles), never from users. */
export type InternalAction =
  /** `close`: the pane goes once marked exited (remain_on_exit said so); else it stays, showing how it ended. */
  | { type: 'pane.exited'; pane: string; code: number | null; signal?: number | null; close?: boolean }
  | { type: 'pane.title'; pane: string; title: string }
  /** The pane's worktree and its change summary (src/worktree), or none. */
  | { type: 'pane.worktree'; pane: string; worktree?: import('./types.js').PaneWorktree }
  /** The pane's foreground program changed (tmux's automatic-rename): shown when nothing better names the pane. */
  | { type: 'pane.foreground'; pane: string; name: string }
  | {
      type: 'agent.detected';
      pane: string;
      /** null: no agent runs here any more (a program the generic reader named has exited to its shell). */
      agent?: string | null;
      state: z.infer<typeof agentStateSchema>;
      rule?: string;
      /** The screen plainly contradicts a hook report nothing ended (an interrupt, a rejection): take over. */
      overrideHook?: boolean;
    }
  | { type: 'client.attach'; client: string; cols: number; rows: number; window?: string }
  | { type: 'client.resize'; client: string; cols: number; rows: number }
  | { type: 'client.detach'; client: string }
  | { type: 'server.init'; cols: number; rows: number; command: string[]; cwd: string; env?: Record<string, string> }
  /** A session shape read back from a snapshot (src/restore builds it; src/core/reduce-restore.ts installs it). */
  | import('./reduce-restore.js').RestoreAction
  /** Takes the next pane number of a window for a split that first runs hooks (the id is known before the pane exists). */
  | { type: 'pane.reserve'; window: string }
  | { type: 'pane.unreserve'; pane: string }
  /** A split into a pane id reserved with pane.reserve. */
  | (Omit<Extract<Action, { type: 'pane.split' }>, 'type'> & { type: 'pane.split'; reserved: string });

export type AnyAction = Action | InternalAction;

/** Who performed an action: a client's keys (its window/focus are the defaults) or the API. */
export interface ActionContext {
  client?: string;
  now: number;
  /** Default command and cwd for new panes (the user's shell). */
  defaultCommand: string[];
  defaultCwd: string;
  /** Delegation limits (config [limits]); DEFAULT_LIMITS when absent. */
  limits?: EpisodeLimits;
}
