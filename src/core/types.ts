// Plain-data shapes of castellan's state: windows, panes, layout, clients and agent badges.
import type { LayoutName } from './layout-presets.js';

export const AGENT_STATES = ['idle', 'working', 'blocked', 'done', 'unknown'] as const;
export type AgentState = (typeof AGENT_STATES)[number];

export const AGENT_SOURCES = ['hook', 'heuristic', 'user', 'cli', 'api'] as const;
export type AgentSource = (typeof AGENT_SOURCES)[number];

/** `w<window>:p<pane>`, stable for the pane's life, never reused in a server's life. */
export type PaneId = string;
/** `w<n>`. */
export type WindowId = string;
export type ClientId = string;

export type Direction = 'left' | 'right' | 'up' | 'down';

export interface Size {
  cols: number;
  rows: number;
}

export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** Binary split tree. `row` lays children side by side (a left, b right); `col` stacks them (a above b). */
export type LayoutNode =
  | { kind: 'leaf'; pane: PaneId }
  | { kind: 'split'; axis: 'row' | 'col'; ratio: number; a: LayoutNode; b: LayoutNode };

export interface AgentReport {
  agent: string;
  state: AgentState;
  source: AgentSource;
  message?: string;
  seq?: number;
  sessionId?: string;
  /** The agent's own command-line arguments, as its integration reported them (pi rewrites its process title). */
  args?: string[];
  /** From castellan's own integration (the hook bridge, ACP): the screen may end a state the agent never ends itself. */
  integration?: boolean;
  at: number;
}

/** What the pane's badge shows, plus what it was derived from. */
export interface AgentInfo {
  /** Agent name ("claude", "codex", ...) or undefined when no agent is known to run in the pane. */
  agent?: string;
  state: AgentState;
  source?: AgentSource;
  message?: string;
  /** When state last changed (ms since epoch). */
  since: number;
  /** Last hook report; while set (and not reset), heuristics are ignored for this pane. */
  hook?: AgentReport;
  /** Last heuristic reading. */
  heuristic?: { agent?: string; state: AgentState; rule?: string; at: number };
  /** Highest seq seen from reporters (reports with an older seq are dropped). */
  lastSeq?: number;
  /** The user asked to be told when this pane's agent next becomes idle/done. */
  waitMark?: boolean;
}

export interface PaneState {
  id: PaneId;
  window: WindowId;
  /** User-given name; when empty, the title falls back to the program's OSC title or its command. */
  name?: string;
  /** Title the program set with OSC 0/2. */
  programTitle?: string;
  /** Name of the terminal's foreground program ("vim", "npm"), when it is not the pane's own command. */
  foreground?: string;
  command: string[];
  cwd: string;
  /** Exit status once the program ended; the pane stays until closed. */
  exited?: { code: number | null; signal?: number | null; at: number };
  agent: AgentInfo;
  createdAt: number;
  /** Extra environment for the pane's process (on top of the server's and CASTELLAN_*). */
  env?: Record<string, string>;
  /** Parent pane for sub-harness panes (issue 8); undefined for top-level panes. */
  parent?: PaneId;
  /** The recursive episode this pane belongs to: a root (`castellan run --rlm`, depth 0) or a sub-harness (depth >= 1). */
  episode?: EpisodeInfo;
  /** The agent's own git worktree (src/worktree): its branch and change summary, for the border. */
  worktree?: PaneWorktree;
  /**
   * Restored from a snapshot whose directory for this pane was gone: the directory it ran in (it opened elsewhere). Shown
   * in its border and `herd list` for the pane's life: an agent's own screen clear wipes the dim line that said so.
   */
  cwdGone?: string;
}

export interface PaneWorktree {
  branch: string;
  files: number;
  added: number;
  removed: number;
  ahead: number;
  missing?: boolean;
}

export interface EpisodeInfo {
  goalId: string;
  /** 0 for the episode's root pane, parent's depth + 1 for a sub-harness pane. */
  depth: number;
  /** The pane may delegate (open sub-harness panes). */
  rlm: boolean;
}

/** Limits on delegation trees, from config `[limits]`. */
export interface EpisodeLimits {
  maxDepth: number;
  maxChildren: number;
  /** Keep a pane's sub-harness children running when it exits or closes (default: they are closed). */
  keepChildren: boolean;
}

export const DEFAULT_LIMITS: EpisodeLimits = { maxDepth: 3, maxChildren: 8, keepChildren: false };

export interface WindowState {
  id: WindowId;
  /** Position shown in the bar (1-based, renumbered as tmux does with renumber-windows). */
  index: number;
  name?: string;
  layout: LayoutNode;
  active: PaneId;
  /** Previously active pane, for "last pane". */
  lastActive?: PaneId;
  zoomed?: PaneId;
  /** tmux synchronize-panes: what is typed goes to every pane of the window. */
  synchronized?: boolean;
  /** The preset layout last selected (`window.layout`), so `prefix Space` moves on to the next one. */
  layoutName?: LayoutName;
  nextPaneNo: number;
  /** Pane numbers reserved for a split still waiting on its SessionStart hooks (each used at most once). */
  reserved?: number[];
  /** Size of the window's area (the clients' size minus the status bar), by the multi-client size policy. */
  size: Size;
}

export interface ClientState {
  id: ClientId;
  size: Size;
  window: WindowId;
  lastWindow?: WindowId;
  attachedAt: number;
}

export interface State {
  session: string;
  windows: Record<WindowId, WindowState>;
  windowOrder: WindowId[];
  panes: Record<PaneId, PaneState>;
  clients: Record<ClientId, ClientState>;
  /** Window shown to clients that attach, and the target of client-less commands. */
  currentWindow?: WindowId;
  nextWindowNo: number;
  /** Size used when no client is attached (for `server start` with no client). */
  defaultSize: Size;
}

export const STATUS_BAR_ROWS = 1;
