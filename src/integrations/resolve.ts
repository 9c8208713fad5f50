// Pure mapping of one hook event + payload to a badge report, driven by a harness table (no I/O).
import { stripControls } from '../core/text.js';
import type { Case, EventRow, HarnessTable, Outcome, Resolved } from './types.js';

const MAX_MESSAGE = 300;

/** Reads a dotted path; numeric segments index arrays (negative from the end). */
export function getField(payload: unknown, path: string): unknown {
  let cur: unknown = payload;
  for (const seg of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    if (Array.isArray(cur) && /^-?\d+$/.test(seg)) {
      const i = Number(seg);
      cur = cur[i < 0 ? cur.length + i : i];
    } else {
      cur = (cur as Record<string, unknown>)[seg];
    }
  }
  return cur;
}

function present(v: unknown): boolean {
  if (v === undefined || v === null || v === false) return false;
  if (typeof v === 'string') return v.trim() !== '';
  if (Array.isArray(v)) return v.length > 0;
  return true;
}

function matches(c: Case, payload: unknown): boolean {
  const v = getField(payload, c.field);
  if (c.equals !== undefined) {
    const want = typeof c.equals === 'string' ? [c.equals] : c.equals;
    return typeof v === 'string' && want.includes(v);
  }
  return present(v) === (c.present ?? true);
}

/** One line of text: first line of a string field, control characters dropped, trimmed to a badge-sized length. */
function textOf(v: unknown): string | undefined {
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (typeof v !== 'string') return undefined;
  const line = v
    .split('\n')
    .map((s) => s.trim())
    .find((s) => s !== '');
  if (!line) return undefined;
  const clean = stripControls(line);
  return clean.length > MAX_MESSAGE ? clean.slice(0, MAX_MESSAGE - 1) + '…' : clean;
}

export function renderMessage(templates: readonly string[] | undefined, payload: unknown): string | undefined {
  for (const t of templates ?? []) {
    let ok = true;
    const s = t.replace(/\{([^}]+)\}/g, (_, path: string) => {
      const v = textOf(getField(payload, path));
      if (v === undefined) ok = false;
      return v ?? '';
    });
    if (ok && s.trim()) return s.length > MAX_MESSAGE ? s.slice(0, MAX_MESSAGE - 1) + '…' : s;
  }
  return undefined;
}

/** A payload from inside a subagent (Claude sets `agent_id` on every event a subagent fires). */
export function isSubagentPayload(payload: unknown): boolean {
  return present(getField(payload, 'agent_id'));
}

export function findRow(table: HarnessTable, event: string): EventRow | undefined {
  return table.rows.find((r) => r.event === event);
}

export type Skip = { skip: string };

/** The report an event makes, or why it makes none. */
export function resolveEvent(table: HarnessTable, event: string, payload: unknown): Resolved | Skip {
  const row = findRow(table, event);
  if (!row) return { skip: `unmapped event ${event}` };
  if (isSubagentPayload(payload)) return { skip: 'subagent event' };
  const hit: Outcome = row.cases?.find((c) => matches(c, payload)) ?? row;
  if (hit.state === null) return { skip: `${event} reports no state` };
  const message = renderMessage(hit.message, payload);
  return {
    row,
    state: hit.state,
    ...(message ? { message } : {}),
    release: !!hit.release,
    lock: hit.lock ?? true,
    ...(hit.unless ? { unless: hit.unless } : {}),
  };
}

export function isSkip<T extends object>(r: T | Skip): r is Skip {
  return 'skip' in r;
}

/** The session id a report carries: the row's thread field, else `session_id`; only a sane string. */
export function sessionIdOf(payload: unknown, field: string | undefined): string | undefined {
  const v = getField(payload, field ?? 'session_id') ?? getField(payload, 'session_id');
  return typeof v === 'string' && v.length > 0 && v.length <= 200 ? v : undefined;
}

/** Bounds on reported arguments: the snapshot's own (restore/schema.ts LIMITS.argv, LIMITS.arg). */
export const ARGS_MAX = 64;
export const ARG_MAX = 4096;

/** The agent's own arguments a report carries (table `tools.args`): an array of strings within bounds, else nothing. */
export function argsOf(payload: unknown, field: string | undefined): string[] | undefined {
  if (!field) return undefined;
  const v = getField(payload, field);
  if (!Array.isArray(v) || v.length > ARGS_MAX || !v.every((a) => typeof a === 'string' && a.length <= ARG_MAX)) return undefined;
  return v as string[];
}

/** Set (true) in a payload by an integration whose state report is already done: the bridge then only governs. */
export const REPORTED_FIELD = 'castellan_reported';

/** One event's pane.report_agent, as the spawned bridge and the server's hook.event both send it. */
export interface PlannedReport {
  /** pane.report_agent params without pane_id and seq. */
  report: { agent: string; state: Resolved['state']; source: 'hook' | 'api'; message?: string; session_id?: string; args?: string[]; integration: true };
  /** Skip the report while the pane's badge is one of these. */
  unless?: readonly Resolved['state'][];
  /** After a report the server took, hand the pane back to heuristics (pane.reset_agent). */
  release: boolean;
}

/** What to report for one event (state, source, message, session id, unless, release), or why nothing. Pure. */
export function planReport(table: HarnessTable, event: string, payload: unknown): PlannedReport | Skip {
  // An in-process integration whose server took the report (hook.event) and runs the bridge only for governance.
  if (getField(payload, REPORTED_FIELD) === true) return { skip: 'reported over the socket already' };
  const r = resolveEvent(table, event, payload);
  if (isSkip(r)) return r;
  // The agent's own id field (Copilot `sessionId`, opencode/Kilo `sessionID`): restore resumes the pane by it.
  const sessionId = sessionIdOf(payload, r.row.mainThreadField ?? table.tools.session);
  // pi's flags, which its process title no longer shows: restore keeps them (src/restore/capture.ts).
  const args = argsOf(payload, table.tools.args);
  return {
    report: { agent: table.agent, state: r.state, source: r.lock ? 'hook' : 'api', integration: true, ...(r.message ? { message: r.message } : {}), ...(sessionId ? { session_id: sessionId } : {}), ...(args ? { args } : {}) },
    ...(r.unless?.length ? { unless: r.unless } : {}),
    release: r.release,
  };
}
