// One tool call, two gates (Qwen: PermissionRequest, then PreToolUse once approved): the first gate's allow is handed on, so the call is judged and audited once.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A handed-on allow older than this is judged again (the user may leave a dialog open for long; a stale one only costs an audit line). */
export const HANDOFF_TTL_MS = 60 * 60 * 1000;
/** Bounds the file: one line per call awaiting its second gate. */
const MAX_ENTRIES = 256;

export interface Handoff {
  file: string;
  key: string;
}

/** Where a pane's handed-on allows live, and the key of one call (its session, tool and whole input). */
export function handoffOf(o: { stateDir: string; socket: string; pane: string; agent: string; session: string; tool: string; toolInput: unknown }): Handoff {
  const file = join(o.stateDir, 'hook-bridge', `${`${o.socket}|${o.pane}`.replace(/[^A-Za-z0-9._-]/g, '_')}.${o.agent}-allowed`);
  const key = createHash('sha256').update(JSON.stringify([o.session, o.tool, o.toolInput])).digest('hex');
  return { file, key };
}

function entries(file: string, now: number): Array<[number, string]> {
  let text = '';
  try {
    text = readFileSync(file, 'utf8').slice(0, MAX_ENTRIES * 100);
  } catch {
    return [];
  }
  return text
    .split('\n')
    .map((l) => /^([0-9]{1,16}) ([0-9a-f]{64})$/.exec(l))
    .filter((m): m is RegExpExecArray => !!m && now - Number(m[1]) < HANDOFF_TTL_MS)
    .map((m) => [Number(m[1]), m[2]!] as [number, string]);
}

function save(file: string, list: Array<[number, string]>): void {
  try {
    mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, list.slice(-MAX_ENTRIES).map(([t, k]) => `${t} ${k}\n`).join(''), { mode: 0o600 });
    renameSync(tmp, file);
  } catch {
    /* best effort: a lost hand-off means the second gate judges the call again (audited twice), never a pass */
  }
}

/** The first gate allowed this call: remember it for the second. */
export function handOn(h: Handoff, now = Date.now()): void {
  save(h.file, [...entries(h.file, now).filter(([, k]) => k !== h.key), [now, h.key]]);
}

/** At the second gate: was this very call allowed at the first? Taken once (a repeat of the call is judged again). */
export function takeHandoff(h: Handoff, now = Date.now()): boolean {
  const list = entries(h.file, now);
  const i = list.findIndex(([, k]) => k === h.key);
  if (i === -1) return false;
  list.splice(i, 1);
  save(h.file, list);
  return true;
}
