// The shape of a small stage table for harnesses that are castellan's own code (shell plugin, MCP server), not an agent's hook system.

/** Castellan's hookable stages, as the harness parity matrix shows them (badge reports, governance hooks, per-agent hooks). */
export const MATRIX_STAGES = ['state', 'SessionStart', 'SessionEnd', 'PreToolUse', 'PostToolUse', 'UserPromptSubmit', 'SubagentStart', 'SubagentStop', 'PostSampling'] as const;
export type MatrixStage = (typeof MATRIX_STAGES)[number];

/** Who configures a stage: a badge report, a governance hook ([[hooks.hooks]]), or an agent definition's own hook. */
export const STAGE_KIND: Record<MatrixStage, 'badge' | 'governance' | 'agent'> = {
  state: 'badge',
  SessionStart: 'governance',
  SessionEnd: 'governance',
  PreToolUse: 'governance',
  PostToolUse: 'governance',
  UserPromptSubmit: 'agent',
  SubagentStart: 'agent',
  SubagentStop: 'agent',
  PostSampling: 'agent',
};

export interface StageCell {
  /** What fires the stage: the harness's own events, or castellan commands/tools. Empty: it never fires. */
  via: string[];
  note?: string;
}

export interface HarnessStageTable {
  harness: string;
  label: string;
  stages: Record<MatrixStage, StageCell>;
}
