// What socket methods may use: the session's surface (implemented by the server) and the calling connection.
import type { AnyAction } from '../core/actions.js';
import type { StampedEvent } from '../core/events.js';
import type { ReduceResult } from '../core/reducer.js';
import type { State } from '../core/types.js';
import type { DetectionLoop } from '../server/detection-loop.js';

export interface Connection {
  readonly id: string;
  /** Pushes one message (a line of JSON) to the peer; returns false when the peer is slow (backpressure). */
  send(msg: unknown): boolean;
  onClose(cb: () => void): void;
  readonly closed: boolean;
  /** The UI client this connection carries, once `client.attach` succeeded. */
  clientId?: string;
  /** Unix credentials of the peer, when known. */
  peer?: { uid?: number; pid?: number };
  /** Event streams started on this connection, by the id of their events.subscribe request. */
  readonly subscriptions: Map<string | number, () => void>;
  /** Set by connection.keep: the server leaves this connection open while it is idle (src/server/idle-close.ts). */
  keep?: boolean;
}

export interface PaneRuntimeInfo {
  pid?: number;
  foreground?: string;
  cols: number;
  rows: number;
  /** Read when asked for (a getter): where asking starts a process (ps, lsof), a hook's pid check must not pay for it. */
  cwd?: string;
  /** What a listing shows: cwd, or where asking starts a process, the last one read (a getter too; see pty.ts). */
  cwdSoon?: string;
  /** The directory read fresh, off the server's thread: what a split opens in. */
  freshCwd?(): Promise<string | undefined>;
}

export interface EventFilter {
  types?: string[];
  panes?: string[];
}

/** Agent definitions and running agents (implemented by src/server/agents.ts; results are the methods' schemas). */
export interface AgentsApi {
  list(p: { cwd?: string; paneId?: string }): unknown;
  start(p: { name: string; cwd?: string; pane?: string; prompt?: string; direction?: 'left' | 'right' | 'up' | 'down'; focus?: boolean; parent?: string; worktree?: boolean | string }): Promise<unknown>;
  /** Agents' git worktrees (worktree.* methods, `worktree` of pane.split). */
  readonly worktrees?: import('../worktree/index.js').WorktreeManager;
  hook(p: { agentId: string; hookType: 'SubagentStart' | 'UserPromptSubmit' | 'SubagentStop' | 'PostSampling' | 'SessionStart'; payload?: Record<string, unknown>; paneId?: string }): Promise<unknown>;
  prompt(p: { agentId?: string; paneId?: string; text: string }): Promise<unknown>;
}

/** Recursive episodes (implemented by src/server/episodes.ts). */
export interface EpisodesApi {
  start(p: { paneId: string; goalId: string; rlm?: boolean }): Record<string, unknown>;
  end(paneId: string): Promise<Record<string, unknown>>;
  tree(paneId: string): unknown;
  /** A sub-harness split of `action.pane`: SessionStart hooks first, then the pane. */
  split(action: Extract<AnyAction, { type: 'pane.split' }>, o?: { plugin?: string }): Promise<ReduceResult>;
}

/** Popups over a client's layout (implemented by src/popup/manager.ts). */
export interface PopupsApi {
  open(req: { client?: string; pane?: string; command?: string[]; cwd?: string; width?: number | string; height?: number | string; title?: string }): {
    popup_id: string; client_id: string; command: string[]; cwd: string; cols: number; rows: number;
  };
  close(sel: { popup?: string; client?: string }): string | undefined;
}

/** The web view (implemented by src/server/web-host.ts over src/web). */
export interface WebApi {
  status(): import('../web/index.js').WebStatus;
  start(p: WebStartOptions): Promise<import('../web/index.js').WebStatus>;
  pair(p: WebStartOptions & { read_only?: boolean }): Promise<{ url: string; expires: number; read_only: boolean }>;
  revoke(): { sessions: number };
  stop(): Promise<{ stopped: boolean }>;
  /** This session's herd rows, for another server's page. */
  herd(): Promise<{ session: string; rows: unknown[] }>;
  /** Streams a pane to another server's page: the first screen, then frames through `push` (false: the peer is slow). */
  view(pane: string, push: (msg: unknown) => boolean): Promise<{ first: unknown; stop: () => void }>;
  /** An action from another server's page, carried out and audited here. */
  act(p: { browser_session: string; remote: string; via: string } & import('../web/index.js').Action): Promise<void>;
}

export interface WebStartOptions {
  bind?: string;
  port?: number;
  read_only?: boolean;
  tls_cert?: string;
  tls_key?: string;
  allow_remote?: boolean;
}

export interface SessionApi {
  readonly version: string;
  readonly session: string;
  readonly startedAt: number;
  readonly socketPath: string;
  state(): State;
  /** Live counts for `ping` (scripts and tests can see that a wait or a client is in place). */
  stats(): { clients: number; subscribers: number; panes: number };
  /** Runs an action through the reducer; throws ApiError when the reducer refuses it. */
  dispatch(action: AnyAction, opts?: { client?: string }): ReduceResult;
  paneInfo(pane: string): PaneRuntimeInfo | undefined;
  /** What detection sees and decides for a pane, and why the badge shows what it shows. */
  explainPane(pane: string): Promise<Record<string, unknown>>;
  /** Screen detection, for hook reports the screen has already overtaken (pane.report_agent). */
  readonly detection: Pick<DetectionLoop, 'screenOutranks' | 'hookReported'>;
  readPane(pane: string, opts: { lines?: number; ansi?: boolean; source: 'screen' | 'all' }): string[];
  writePane(pane: string, data: string, opts?: { paste?: boolean }): void;
  subscribe(filter: EventFilter, cb: (e: StampedEvent) => void): () => void;
  /** Emits a non-reducer event (hooks, governance) to subscribers. */
  emit(e: { type: string; [k: string]: unknown }): void;
  attach(conn: Connection, params: { cols: number; rows: number; term?: string; window?: string }): Promise<Record<string, unknown>>;
  detach(clientId: string, reason: string): void;
  clientInput(clientId: string, msg: ClientInput): void;
  clientResize(clientId: string, cols: number, rows: number): void;
  clientAction(clientId: string, action: AnyAction): ReduceResult;
  clientCopy(clientId: string, op: { op: 'enter' } | { op: 'exit' } | { op: 'paste' } | { op: 'key'; key: string } | { op: 'scroll'; lines: number }): void;
  reloadConfig(): { diagnostics: unknown[]; notes: string[] };
  setTheme(name: string): { theme: string; diagnostics: string[] };
  /** Asks the attached users a yes/no question (governance `prompt` policy); no client or no answer in time → deny. */
  ask(q: { title: string; message: string; timeoutMs: number; paneId?: string }): Promise<'allow' | 'deny'>;
  /** A client's answer to an ask. */
  answer(clientId: string, id: string, answer: 'allow' | 'deny'): boolean;
  shutdown(reason: string): void;
  /** Agents started from definitions (agent.* methods); absent in sessions without them. */
  readonly agents?: AgentsApi;
  /** Recursive episodes and sub-harness panes (episode.* methods, pane.split with sub_harness). */
  readonly episodes?: EpisodesApi;
  /** The panes' SSH_AUTH_SOCK link (client.ssh_agent), pointed at an attaching client's agent (src/server/ssh-agent-link.ts). */
  readonly sshAgent?: { retarget(agent: unknown): boolean };
  /** Floating popups (popup.* methods); absent in sessions without them. */
  readonly popups?: PopupsApi;
  /** The web view (web.* methods); absent in sessions without it. */
  readonly web?: WebApi;
  /** The session's snapshot on disk (src/restore); absent with `[session] restore = "off"`. */
  readonly snapshots?: { save(): Promise<{ ms: number; bytes: number } | undefined>; forget(): Promise<void>; killed(): Promise<string | undefined> };
}

export type ClientInput =
  | { kind: 'data'; data: string }
  /** A paste; a big one comes in parts (`part`: first, more, last) and is bracketed once around the whole. */
  | { kind: 'paste'; text: string; part?: 'first' | 'more' | 'last' }
  | { kind: 'mouse'; action: 'press' | 'release' | 'move' | 'wheel-up' | 'wheel-down'; button: number; x: number; y: number; shift?: boolean; meta?: boolean; ctrl?: boolean }
  | { kind: 'focus'; focused: boolean };

export interface MethodContext {
  session: SessionApi;
  conn: Connection;
  /** Id of the request being handled (absent for notifications). */
  requestId?: string | number;
}
