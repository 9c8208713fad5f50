// What the web room needs from the server (implemented by src/server/web-host.ts), and what it offers back.
import type { State } from '../core/types.js';

export interface PaneScreen {
  readonly cols: number;
  readonly rows: number;
  /** SGR-styled visible rows (the same array while nothing changed). */
  viewportRows(): string[];
  /** SGR-styled history lines above the screen (normal buffer), at most `max`, oldest first. */
  history(max: number): string[];
  cursor(): { x: number; y: number; visible: boolean };
  /** The absolute number of the screen's first row in the normal buffer's history; undefined on the alternate screen. */
  top?(): number | undefined;
  /** SGR-styled lines [from, to) of the normal buffer by absolute number (those still kept). */
  range?(from: number, to: number): string[];
  /** Called after output was parsed; returns the unsubscribe. */
  onChange(cb: () => void): () => void;
}

export interface WebHost {
  session: string;
  version: string;
  state(): State;
  /** Every server event (state changes, panes coming and going); returns the unsubscribe. */
  onEvent(cb: (e: { type: string; pane?: string; [k: string]: unknown }) => void): () => void;
  screen(pane: string): PaneScreen | undefined;
  /** Types into a pane as a key press would (throws when the pane is gone). */
  write(pane: string, data: string): void;
  /** A prompt to an agent: through its UserPromptSubmit hooks when castellan started it, else typed with Enter. */
  prompt(pane: string, text: string): Promise<{ sent: boolean; reason?: string }>;
  /** Answers a pending governance question (the same path an attached client's answer takes); false when it is over. */
  answerAsk(id: string, answer: 'allow' | 'deny'): boolean;
  /** One record in the audit log (and an event for subscribers). */
  audit(record: Record<string, unknown>): void;
  log(msg: string): void;
  /** The other sessions of this machine and the sessions of the machines in the profiles (asked again every few seconds while a page is open). */
  peers?(): Promise<Peer[]>;
}

/** What the page needs of another server's socket (an RpcClient: a local socket, or a machine's over ssh). */
export interface PeerClient {
  request<T = unknown>(method: string, params?: unknown, opts?: { timeoutMs?: number; id?: string }): Promise<T>;
  notify(method: string, params?: unknown): void;
  nextId(): string;
  onMessage(cb: (msg: Record<string, unknown>) => void): () => void;
  onClosed(cb: () => void): void;
  close(): void;
}

export interface Peer {
  /** undefined: this machine. */
  machine?: string;
  session: string;
  /** Connects (the caller bounds the wait and closes it). */
  connect(): Promise<PeerClient>;
  /** How long connecting may take (a machine over ssh needs longer than a local socket). */
  connectMs: number;
}

export interface WebSettings {
  bind: string;
  port: number;
  readOnly: boolean;
  hosts: string[];
  tlsCert?: string;
  tlsKey?: string;
  allowRemote: boolean;
  /** Where browser sessions (hashes of their cookies) are kept across restarts; none: in memory only. */
  sessionsFile?: string;
  /** How often pages are pinged (tests shorten it; default HEARTBEAT_MS). */
  heartbeatMs?: number;
}

export interface WebStatus {
  running: boolean;
  url?: string;
  bind?: string;
  port?: number;
  tls?: boolean;
  sessions: number;
  pending: number;
  pages: number;
  /** Said when asked settings were not applied (the page is already served with others). */
  note?: string;
}
