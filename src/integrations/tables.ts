// The registry of harness event tables, and the harness parity matrix derived from them (which stages and states each harness can fire).
import type { AgentState } from '../core/types.js';
import { CLAUDE } from './claude.js';
import { CODEX } from './codex.js';
import { COPILOT } from './copilot.js';
import { GEMINI } from './gemini.js';
import { KILO, OPENCODE } from './opencode.js';
import { PI } from './pi.js';
import { QWEN } from './qwen.js';
import { AGENTS, type AgentName, type EventRow, type HarnessTable, STAGES, type Stage } from './types.js';

export const HARNESS_TABLES: Readonly<Record<AgentName, HarnessTable>> = { claude: CLAUDE, codex: CODEX, gemini: GEMINI, pi: PI, copilot: COPILOT, qwen: QWEN, opencode: OPENCODE, kilo: KILO };

export function isAgentName(s: string): s is AgentName {
  return (AGENTS as readonly string[]).includes(s);
}

/** Events `castellan integrations install` registers for an agent. */
export function installedEvents(agent: AgentName): EventRow[] {
  return HARNESS_TABLES[agent].rows.filter((r) => r.install);
}

/** Every state a row can report (its own and its cases'). */
export function rowStates(row: EventRow): AgentState[] {
  const out = new Set<AgentState>();
  if (row.state) out.add(row.state);
  for (const c of row.cases ?? []) if (c.state) out.add(c.state);
  return [...out];
}

export interface ParityCell {
  /** The agent events feeding this stage (installed or not). */
  events: string[];
  /** Those castellan installs a hook for. */
  installed: string[];
}

export interface ParityMatrix {
  agents: AgentName[];
  /** stage → agent → events. An empty `events` list: the harness cannot fire that stage. */
  stages: Record<Stage, Record<AgentName, ParityCell>>;
  /** badge state → agent → installed events that can report it. */
  states: Record<AgentState, Record<AgentName, string[]>>;
}

/** Which castellan stages and badge states each harness can fire, straight from the tables. */
export function harnessParity(tables: Readonly<Record<AgentName, HarnessTable>> = HARNESS_TABLES): ParityMatrix {
  const agents = [...AGENTS];
  const stages = {} as ParityMatrix['stages'];
  for (const s of STAGES) {
    stages[s] = {} as Record<AgentName, ParityCell>;
    for (const a of agents) {
      const rows = tables[a].rows.filter((r) => r.stage === s);
      stages[s][a] = { events: rows.map((r) => r.event), installed: rows.filter((r) => r.install).map((r) => r.event) };
    }
  }
  const states = {} as ParityMatrix['states'];
  for (const st of ['idle', 'working', 'blocked', 'done', 'unknown'] as const) {
    states[st] = {} as Record<AgentName, string[]>;
    for (const a of agents) states[st][a] = tables[a].rows.filter((r) => r.install && rowStates(r).includes(st)).map((r) => r.event);
  }
  return { agents, stages, states };
}
