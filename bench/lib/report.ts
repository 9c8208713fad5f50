// Result rows of every section and the summary table printed at the end.
import { round } from './util.js';

export interface Row {
  section: string;
  metric: string;
  unit: string;
  castellan: number;
  tmux?: number;
  /** Shown instead of the ratio when the ratio means nothing (e.g. both ~0). */
  note?: string;
  /** Target for castellan, as text, and whether it was met. */
  target?: string;
  pass?: boolean;
  /** Decimal places for display. */
  digits?: number;
}

export interface SectionResult {
  rows: Row[];
  raw: unknown;
}

const fmt = (x: number | undefined, digits: number): string => (x === undefined ? '—' : Number.isFinite(x) ? round(x, digits).toFixed(digits) : String(x));

export function table(rows: Row[]): string {
  const head = ['section', 'metric', 'castellan', 'tmux', 'unit', 'c/t', 'target'];
  const body = rows.map((r) => {
    const d = r.digits ?? 2;
    const ratio = r.tmux !== undefined && Number.isFinite(r.tmux) && r.tmux !== 0 && Number.isFinite(r.castellan) ? (r.castellan / r.tmux).toFixed(2) : '—';
    const target = r.target ? `${r.target} ${r.pass === undefined ? '' : r.pass ? 'OK' : 'MISSED'}` : '';
    return [r.section, r.metric, fmt(r.castellan, d), fmt(r.tmux, d), r.unit, r.note ?? ratio, target.trim()];
  });
  const w = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i >= 2 && i <= 3 ? c.padStart(w[i]) : c.padEnd(w[i]))).join('  ').trimEnd();
  const out = [line(head), w.map((n) => '-'.repeat(n)).join('  ')];
  let prev = '';
  for (let i = 0; i < body.length; i++) {
    if (rows[i].section !== prev && prev) out.push('');
    prev = rows[i].section;
    out.push(line(body[i]));
  }
  return out.join('\n');
}
