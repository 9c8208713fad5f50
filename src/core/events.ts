// Events the server emits: to socket subscribers, to `events.wait`, to the hooks engine and to clients.
import type { AgentSource, AgentState, PaneId, WindowId } from './types.js';

export type CastellanEvent =
  | { type: 'pane_created'; pane: PaneId; window: WindowId; command: string[]; cwd: string; parent?: PaneId }
  | { type: 'pane_closed'; pane: PaneId; window: WindowId }
  | { type: 'pane_exited'; pane: PaneId; window: WindowId; code: number | null; signal?: number | null }
  | { type: 'pane_renamed'; pane: PaneId; name: string }
  | { type: 'focus_changed'; pane: PaneId; window: WindowId; previous?: PaneId; client?: string }
  | { type: 'window_created'; window: WindowId; index: number; name?: string }
  | { type: 'window_closed'; window: WindowId }
  | { type: 'window_renamed'; window: WindowId; name: string }
  | { type: 'layout_changed'; window: WindowId }
  | { type: 'window_synchronized'; window: WindowId; on: boolean }
  | { type: 'pane_moved'; pane: PaneId; from: WindowId; to: WindowId }
  | { type: 'pane_respawned'; pane: PaneId; command: string[]; cwd: string }
  | {
      type: 'pane_agent_status_changed';
      pane: PaneId;
      agent?: string;
      old: AgentState;
      new: AgentState;
      source?: AgentSource;
      message?: string;
    }
  /** An agent finished a turn (working/blocked to idle/done, or it reported done), whether or not anyone saw it. */
  | { type: 'pane_agent_turn_ended'; pane: PaneId; agent?: string; state: AgentState; message?: string }
  | { type: 'client_attached'; client: string }
  | { type: 'client_detached'; client: string }
  | { type: 'notice'; level: 'info' | 'warning' | 'error'; message: string; pane?: PaneId }
  /** Hook, governance and sub-harness events carry their own fields (issues 5-8). */
  | { type: `hook_${string}` | 'PlanVerifyPassed' | 'PlanVerifyDenied' | `sub_harness_${string}` | `agent_${string}`; [key: string]: unknown };

export type EventType = CastellanEvent['type'];

/** An event as delivered: stamped with a server-wide sequence number and time. */
export type StampedEvent = CastellanEvent & { seq: number; ts: number };
