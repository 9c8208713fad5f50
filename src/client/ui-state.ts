// The client's own UI state (prefix indicator, overlays, prompts, notices): never sent to the server.
export type PromptPurpose = 'rename-pane' | 'rename-window' | 'command';
export type ConfirmPurpose = 'close-pane' | 'close-window';

export type Overlay =
  | { kind: 'help'; filter: string; scroll: number; filtering: boolean }
  | { kind: 'prompt'; label: string; text: string; purpose: PromptPurpose }
  | { kind: 'confirm'; label: string; purpose: ConfirmPurpose; target?: string }
  /** A question from the server (a governance prompt): y allows, n or Esc denies; keys in the first moments are ignored. */
  | { kind: 'ask'; id: string; label: string; shownAt: number; deadline: number };

export interface Notice {
  level: 'info' | 'warning' | 'error';
  text: string;
}

export interface LocalUi {
  prefix: boolean;
  overlay?: Overlay;
  notice?: Notice;
}
