// The shape of a harness event table: one row per agent hook event, naming the castellan stage it feeds and the badge state it reports.
import type { AgentState } from '../core/types.js';

export const AGENTS = ['claude', 'codex', 'gemini', 'pi', 'copilot', 'qwen', 'opencode', 'kilo'] as const;
export type AgentName = (typeof AGENTS)[number];

/**
 * Castellan's lifecycle stages, harness-neutral (the vocabulary of the harness parity matrix). A row's
 * `stage` says which one an agent event is; `null` means the event is not one of them (chatty
 * streaming events, resource discovery, ...).
 */
export const STAGES = [
  'SessionStart',
  'SessionEnd',
  'UserPromptSubmit',
  'PreToolUse',
  'PermissionRequest',
  'PostToolUse',
  'PostSampling',
  'Stop',
  'Interrupt',
  'Notification',
  'SubagentStart',
  'SubagentStop',
  'PreCompact',
] as const;
export type Stage = (typeof STAGES)[number];

/** What an event means for the pane's badge. */
export interface Outcome {
  /** State to report; `null` = report nothing (the event does not change the badge). */
  state: AgentState | null;
  /**
   * Message templates: `{field.path}` is replaced by that payload field; the first template whose
   * fields are all present (non-empty) is used. No template matches: no message.
   */
  message?: readonly string[];
  /**
   * The agent is gone (it exited): after the report, hand the pane back to screen heuristics
   * (pane.reset_agent), or a shell pane would stay hook-locked after the agent quit.
   */
  release?: boolean;
  /**
   * `false`: report with source "api" instead of "hook", so the report sets the badge without
   * locking out screen heuristics (for hints that may arrive without the other hooks).
   */
  lock?: boolean;
  /**
   * Skip the report while the pane's badge is in one of these states (the bridge asks pane.get first):
   * Claude's `idle_prompt` must not wipe an unseen `done`.
   */
  unless?: readonly AgentState[];
}

/** A payload-dependent override: first matching case wins, else the row's own outcome. */
export interface Case extends Outcome {
  /** Dotted payload path, e.g. `notification_type` or `messages.-1.stopReason` (negative = from the end). */
  field: string;
  /** Matches when the field equals this (or one of these) string(s). */
  equals?: string | readonly string[];
  /** Matches when the field is present and not empty/false (with no `equals`). */
  present?: boolean;
}

export interface EventRow extends Outcome {
  /** The agent's own event name, exactly as its hook system spells it. */
  event: string;
  stage: Stage | null;
  cases?: readonly Case[];
  /** `castellan integrations install` registers a hook for this event (false: mapped if delivered, not installed: chatty or redundant). */
  install: boolean;
  /** Hook matcher for tool events (Claude/Codex `*`, Gemini regex `.*`). */
  matcher?: string;
  /** Where the row's behaviour was checked: `lab` = recorded payloads in agent-lab, `docs` = the agent's documentation only. */
  evidence: 'lab' | 'docs';
  /** Codex: this event's `session_id` is the main thread; remember it (see `mainThreadField`). */
  rememberThread?: boolean;
  /** Codex notify: the payload field holding the thread id; reports from other threads (the hidden title thread) are dropped. */
  mainThreadField?: string;
  note?: string;
}

/**
 * An answer template for a tool-gating event: JSON on stdout (string values `{decision}` and `{reason}` are filled in)
 * and/or the reason on stderr, with an exit code. An allow is always exit 0 and no output (the agent's own flow decides).
 */
export interface AnswerTemplate {
  exitCode: number;
  stdout?: Record<string, unknown>;
  /** The reason goes to stderr (exit-2 protocols). */
  stderr?: boolean;
}

/** How an agent's tool calls reach castellan's governance, and how its answer is spoken back: data, one per agent. */
export interface ToolProtocol {
  /** Tool-gating events (asked before the call) with the answer each one takes; the first is the main gate. */
  pre: ReadonlyArray<{ event: string; answer: AnswerTemplate; /** An allow here covers the next gate for the same call (not judged, nor audited, twice). */ handsOn?: boolean }>;
  /** The event recording a tool call that happened. */
  post: string;
  /** Payload fields naming the tool and holding its input (the first present input field wins). */
  name: string;
  input: readonly string[];
  /** The payload field holding the agent's session id (default `session_id`). */
  session?: string;
  /**
   * The payload field holding the agent's own command-line arguments, for an agent that rewrites its process title (pi
   * sets `process.title = "pi"`, so its flags are gone from the process list): restore resumes it with these flags.
   */
  args?: string;
  /**
   * A castellan "prompt" decision: `defer` answers "ask" (the agent's own dialog asks the user); `ui` asks in castellan's
   * own UI first, so only allow or deny reach the agent (for agents whose "ask" answer is missing or not honoured).
   */
  prompt: 'defer' | 'ui';
}

/** How `castellan integrations install` writes an agent's hooks (settings-json.ts shapes). */
export interface InstallShape {
  /** `nested`: `hooks.<Event>: [{matcher?, hooks: [hook]}]` (Claude, Codex, Gemini, Qwen); `flat`: `hooks.<event>: [hook]` (Copilot). */
  entries: 'nested' | 'flat';
  /** The hook object for one event (`command` is the installed line; `governs`: a tool-gating event, given a long timeout). */
  hook(event: string, command: string, governs: boolean): Record<string, unknown>;
}

export interface HarnessTable {
  agent: AgentName;
  /** Human name for docs and the parity matrix. */
  label: string;
  /** How the agent calls the bridge (docs). */
  transport: string;
  rows: readonly EventRow[];
  tools: ToolProtocol;
  /** Its prompt event can be answered (block, or context for an agent castellan started). */
  promptAnswered: boolean;
  /** What was checked live in agent-lab (a castellan pane, the installed hooks, the real agent), for the parity matrix. */
  live?: string;
  /** JSON settings castellan merges its hooks into (absent: castellan installs a file of its own, e.g. pi's extension). */
  install?: InstallShape;
}

/** What the bridge does for one event. */
export interface Resolved {
  row: EventRow;
  state: AgentState;
  message?: string;
  release: boolean;
  lock: boolean;
  unless?: readonly AgentState[];
}
