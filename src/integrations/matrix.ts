// The harness parity matrix: which castellan stages each harness fires, derived from the bridges' tables and the shell/MCP stage tables.
import { MCP_STAGES } from '../hooks/mcp-stages.js';
import { SHELL_PLUGIN_STAGES } from '../hooks/shell-stages.js';
import { MATRIX_STAGES, STAGE_KIND, type HarnessStageTable, type MatrixStage, type StageCell } from '../hooks/stage-table.js';
import { agentStage } from './agent-bridge.js';
import { toolEventKind } from './govern.js';
import { HARNESS_TABLES, harnessParity, installedEvents, isAgentName } from './tables.js';
import { AGENTS, type AgentName } from './types.js';

export { MATRIX_STAGES, STAGE_KIND, type MatrixStage, type HarnessStageTable, type StageCell };

/**
 * What the bridge does in code rather than by table row (test/episodes/matrix.test.ts checks both against the bridge):
 * only Claude takes an agent's first message from its SessionStart hook (whose prompt events can be answered: the tables' promptAnswered).
 */
const FIRST_MESSAGE_BY_SESSION_START: readonly AgentName[] = ['claude'];

const LAUNCH = ['castellan run', 'sub-harness pane'];

function events(a: AgentName, pick: (event: string) => boolean): string[] {
  return installedEvents(a)
    .map((r) => r.event)
    .filter(pick);
}

/** An agent's row, from its table: installed events only (castellan hears nothing else). */
export function agentRow(a: AgentName): HarnessStageTable {
  const parity = harnessParity();
  const states = (['idle', 'working', 'blocked', 'done', 'unknown'] as const).filter((s) => parity.states[s][a].length > 0);
  const own = (stage: string) => events(a, (e) => HARNESS_TABLES[a].rows.find((r) => r.event === e)?.stage === stage);
  const pre = events(a, (e) => toolEventKind(a, e) === 'pre');
  const post = events(a, (e) => toolEventKind(a, e) === 'post');
  const prompt = events(a, (e) => agentStage(a, e) === 'UserPromptSubmit');
  const sampled = events(a, (e) => agentStage(a, e) === 'PostSampling');
  const byHook = (evs: string[]) => `castellan fires it around the launch${evs.length ? `, not the agent's own ${evs.join(', ')} event` : ''}`;
  const cell = (via: string[], note?: string): StageCell => (note ? { via, note } : { via });
  return {
    harness: a,
    label: HARNESS_TABLES[a].label,
    stages: {
      state: cell([...states], HARNESS_TABLES[a].live),
      SessionStart: cell(LAUNCH, byHook(own('SessionStart'))),
      SessionEnd: cell(LAUNCH, byHook(own('SessionEnd'))),
      PreToolUse: cell(pre, 'then the permission policy and plan verify'),
      PostToolUse: cell(post),
      UserPromptSubmit: HARNESS_TABLES[a].promptAnswered
        ? cell([...prompt, 'agent.prompt'])
        : cell(['agent.prompt'], `its ${prompt.join(', ') || 'prompt'} event cannot be answered: only prompts sent with agent.prompt run these hooks`),
      SubagentStart: cell(['castellan agent start'], FIRST_MESSAGE_BY_SESSION_START.includes(a) ? `the output reaches it through its ${own('SessionStart').join(', ')} hook` : 'the output is typed as its first prompt'),
      SubagentStop: cell(pre),
      PostSampling: cell(sampled),
    },
  };
}

/** An agent castellan has no bridge for (detected on screen, or a definition of kind `other`). */
export function unbridgedRow(name: string): HarnessStageTable {
  const none = (note?: string): StageCell => (note ? { via: [], note } : { via: [] });
  return {
    harness: name,
    label: name,
    stages: {
      state: { via: ['screen heuristics'] },
      SessionStart: { via: LAUNCH },
      SessionEnd: { via: LAUNCH },
      PreToolUse: none(`${name} has no castellan hook bridge: its own tool calls are not governed (give it castellan exec or the MCP server)`),
      PostToolUse: none(`${name} has no castellan hook bridge`),
      UserPromptSubmit: { via: ['agent.prompt'] },
      SubagentStart: { via: ['castellan agent start'], note: 'the output is typed as its first prompt' },
      SubagentStop: none(`${name} has no castellan hook bridge: nothing asks before its tool calls`),
      PostSampling: none(`${name} has no castellan hook bridge: castellan never sees its responses`),
    },
  };
}

/**
 * What was checked on this machine for each agent castellan integrates (agent-lab: the real agent against an offline
 * mock model), as data: the README's matrix and `castellan integrations matrix` show it beside the grid.
 */
export const VERIFIED_HERE: ReadonlyArray<{ agent: AgentName; label: string; verified: string }> = [
  { agent: 'claude', label: 'Claude Code 2.1.332', verified: 'screens of every state (3 sizes, held out); live badges with and without hooks; governance deny; kill -9 restore by id, two panes in one directory crashed twice' },
  { agent: 'codex', label: 'Codex CLI 0.171.0', verified: 'screens of every state (3 sizes, held out); live badges with and without hooks; governance deny; kill -9 restore by id' },
  { agent: 'gemini', label: 'Gemini CLI 0.61.0', verified: 'screens of every state (3 sizes, held out); live badges with and without hooks; governance deny; ACP (`gemini --acp`): deny, yolo refused' },
  { agent: 'pi', label: 'pi 0.73.1', verified: 'screens of every state (3 sizes, held out); live badges with and without its extension; governance deny; kill -9 restore with its flags and id, two panes in one directory crashed twice' },
  { agent: 'copilot', label: 'Copilot CLI 1.0.102', verified: '22 lab screens + 22 held out; live badges with and without hooks; governance deny; kill -9 restore by id; ACP (`copilot --acp`): deny' },
  { agent: 'qwen', label: 'Qwen Code 0.24.4', verified: '22 lab screens + 22 held out; live badges with and without hooks; governance deny; kill -9 restore by id; ACP (`qwen --acp`): deny' },
  { agent: 'opencode', label: 'opencode 1.18.33', verified: '22 lab screens + 22 held out; live badges with and without its plugin; governance deny; kill -9 restore by id; ACP (`opencode acp`): deny' },
  { agent: 'kilo', label: 'Kilo CLI 7.7.7', verified: '22 lab screens + 22 held out; live badges with and without its plugin; governance deny; kill -9 restore by id; ACP (`kilo acp`): deny' },
];

/**
 * Agents that cannot run here (an account or a network is needed; Crush's installer downloads from outside the
 * registry): castellan claims for them only what it has, and nothing of it was verified on this machine.
 */
export const NOT_VERIFIED_HERE: ReadonlyArray<{ agent: string; label: string; has: string }> = [
  { agent: 'amp', label: 'Amp', has: 'identification (its npm package names); badge from the generic reader' },
  { agent: 'cursor', label: 'Cursor Agent', has: 'identification; screen rules written from public documentation and third-party captures' },
  { agent: 'aider', label: 'aider', has: 'identification (its pip package names); badge from the generic reader' },
  { agent: 'crush', label: 'Crush', has: 'badge from the generic reader (its installer needs github.com)' },
  { agent: 'others', label: 'Droid, Kiro, Kimi, Goose, Cline and the like', has: 'badge from the generic reader only (titles, OSC 9;4 progress, notifications, the bell)' },
];
const NOT_VERIFIED_NOTE = 'not verified here: they need an account or a network; no hook bridge, so no stage but the badge fires';

/** Every harness castellan integrates, in the order docs show them. */
export function harnessMatrix(): HarnessStageTable[] {
  return [...AGENTS.map(agentRow), SHELL_PLUGIN_STAGES, MCP_STAGES];
}

export function rowFor(harness: string): HarnessStageTable {
  if (isAgentName(harness)) return agentRow(harness);
  return harnessMatrix().find((r) => r.harness === harness) ?? unbridgedRow(harness);
}

/** The stages among `stages` that a harness never fires, each with why. */
export function unsupportedStages(harness: string, stages: readonly MatrixStage[]): Array<{ stage: MatrixStage; note?: string }> {
  const row = rowFor(harness);
  return stages.filter((s) => row.stages[s].via.length === 0).map((s) => ({ stage: s, ...(row.stages[s].note ? { note: row.stages[s].note } : {}) }));
}

export function matrixJson(): {
  stages: readonly MatrixStage[];
  kinds: typeof STAGE_KIND;
  harnesses: Array<HarnessStageTable & { fires: MatrixStage[] }>;
  verified_here: typeof VERIFIED_HERE;
  not_verified_here: Array<(typeof NOT_VERIFIED_HERE)[number] & { note: string }>;
} {
  return {
    stages: MATRIX_STAGES,
    kinds: STAGE_KIND,
    harnesses: harnessMatrix().map((r) => ({ ...r, fires: MATRIX_STAGES.filter((s) => r.stages[s].via.length > 0) })),
    verified_here: VERIFIED_HERE,
    not_verified_here: NOT_VERIFIED_HERE.map((a) => ({ ...a, note: NOT_VERIFIED_NOTE })),
  };
}

const KIND_LABEL = { badge: 'badge', governance: 'governance hook', agent: 'per-agent hook' } as const;

/** The matrix as Markdown (README): stages down, harnesses across, footnotes for the notes. */
export function matrixMarkdown(): string {
  const rows = harnessMatrix();
  const notes: string[] = [];
  const ref = (n: string) => {
    let i = notes.indexOf(n);
    if (i === -1) i = notes.push(n) - 1;
    return i + 1;
  };
  const code = (s: string) => (/^[a-z][A-Za-z_.]*$|^[A-Z][A-Za-z]+$/.test(s) || s.startsWith('castellan ') || s.startsWith('share/') ? `\`${s}\`` : s);
  const out = [
    `| stage | ${rows.map((r) => r.label).join(' | ')} |`,
    `|---|${rows.map(() => '---').join('|')}|`,
  ];
  for (const s of MATRIX_STAGES) {
    const cells = rows.map((r) => {
      const c = r.stages[s];
      const text = c.via.length ? c.via.map(code).join(', ') : '—';
      return c.note ? `${text} <sup>${ref(c.note)}</sup>` : text;
    });
    out.push(`| **${s}** (${KIND_LABEL[STAGE_KIND[s]]}) | ${cells.join(' | ')} |`);
  }
  out.push('', ...notes.map((n, i) => `${i + 1}. ${n}`));
  out.push('', 'Verified here (agent-lab: the real agent against an offline mock model; docs/verification.md, docs/restore.md, docs/acp.md):', '', '| agent | verified here |', '|---|---|');
  for (const a of VERIFIED_HERE) out.push(`| ${a.label} | ${a.verified} |`);
  out.push('', `**Not verified here** (${NOT_VERIFIED_NOTE}):`, '', '| agent | what castellan has |', '|---|---|');
  for (const a of NOT_VERIFIED_HERE) out.push(`| ${a.label} | ${a.has} (not verified here) |`);
  return out.join('\n');
}

/** The matrix for a terminal: a ✓/— grid, then what fires each stage per harness. */
export function matrixText(): string {
  const rows = harnessMatrix();
  const w = Math.max(...MATRIX_STAGES.map((s) => s.length)) + 2;
  const cols = rows.map((r) => Math.max(r.harness.length, 1) + 2);
  const lines = [''.padEnd(w) + rows.map((r, i) => r.harness.padEnd(cols[i])).join('').trimEnd()];
  for (const s of MATRIX_STAGES) lines.push(s.padEnd(w) + rows.map((r, i) => (r.stages[s].via.length ? '✓' : '—').padEnd(cols[i])).join('').trimEnd());
  for (const r of rows) {
    lines.push('', `${r.label}:`);
    for (const s of MATRIX_STAGES) {
      const c = r.stages[s];
      lines.push(`  ${s.padEnd(w)}${c.via.length ? c.via.join(', ') : '—'}${c.note ? `  (${c.note})` : ''}`);
    }
  }
  lines.push('', 'Verified here (agent-lab, offline mock):');
  for (const a of VERIFIED_HERE) lines.push(`  ${a.agent.padEnd(w - 2)}${a.label}: ${a.verified}`);
  lines.push('', `Not verified here (${NOT_VERIFIED_NOTE}):`);
  for (const a of NOT_VERIFIED_HERE) lines.push(`  ${a.agent.padEnd(w - 2)}${a.label}: ${a.has}`);
  return lines.join('\n');
}
