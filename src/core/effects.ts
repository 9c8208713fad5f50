// Side effects the reducer asks the runtime to perform; the reducer itself never touches a pty or the OS.
import type { AgentState, PaneId } from './types.js';

export type Effect =
  | { type: 'spawn'; pane: PaneId; command: string[]; cwd: string; env?: Record<string, string> }
  | { type: 'kill'; pane: PaneId }
  | { type: 'notify'; pane: PaneId; state: AgentState; agent?: string; reason: 'unfocused' | 'wait-mark' }
  | { type: 'shutdown'; reason: string };
