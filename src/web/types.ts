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
}

export interface WebSettings {
  bind: string;
  port: number;
  readOnly: boolean;
  hosts: string[];
  tlsCert?: string;
  tlsKey?: string;
  allowRemote: boolean;
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
