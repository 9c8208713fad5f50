// The client's own UI state (prefix indicator, overlays, prompts, notices): never sent to the server.
import type { ChooserState } from './chooser/input.js';

export type PromptPurpose = 'rename-pane' | 'rename-window' | 'command' | 'pane-number' | 'find-window' | 'window-index' | 'move-window';
export type ConfirmPurpose = 'close-pane' | 'close-window';

/** One row of the agent picker (from agent.list). */
export interface PickerAgent {
  name: string;
  description: string;
  command: string;
  source: 'project' | 'user';
  startable: boolean;
  reason?: string;
}

export type Overlay =
  | { kind: 'help'; filter: string; scroll: number; filtering: boolean }
  /** hist: where Up/Down stand in the command history (undefined: the line being typed). */
  | { kind: 'prompt'; label: string; text: string; purpose: PromptPurpose; hist?: number }
  | { kind: 'confirm'; label: string; purpose: ConfirmPurpose; target?: string }
  /** A question from the server (a governance prompt): y allows, n or Esc denies; keys in the first moments are ignored. */
  | { kind: 'ask'; id: string; label: string; shownAt: number; deadline: number }
  /** `prefix a`: agent definitions to launch beside `target` (the focused pane). */
  | { kind: 'agents'; items: PickerAgent[]; index: number; loading: boolean; message?: string; target?: string }
  /** `prefix s` / `prefix w`: the session → window → pane tree (src/client/chooser). */
  | ChooserState;

export interface Notice {
  level: 'info' | 'warning' | 'error';
  text: string;
}

export interface LocalUi {
  prefix: boolean;
  overlay?: Overlay;
  notice?: Notice;
}
