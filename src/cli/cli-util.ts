// Small helpers shared by CLI commands: pane arguments, numbers, tables and JSON output.
// PANE_ID, not core/actions' zod schema (the same regex): a CLI call that takes a pane would load zod for it (~25 ms of CPU).
import { PANE_ID } from '../platform/pane-id.js';
import type { CliContext } from './define-command.js';
import { UsageError } from './define-command.js';

/** A pane argument: `w1:p2`, or `.`/`self` for the pane this command runs in (CASTELLAN_PANE_ID). */
export function paneArg(ctx: CliContext, v: unknown, opts: { required?: boolean; flag?: string } = {}): string | undefined {
  const flag = opts.flag ?? '--pane';
  let s = typeof v === 'string' ? v.trim() : undefined;
  if (s === '.' || s === 'self') s = ctx.env.CASTELLAN_PANE_ID;
  if (!s) {
    if (opts.required) {
      if (ctx.env.CASTELLAN_PANE_ID) return ctx.env.CASTELLAN_PANE_ID;
      throw new UsageError(`${flag} is required (a pane id like w1:p1)`);
    }
    return undefined;
  }
  if (!PANE_ID.test(s)) throw new UsageError(`${flag} ${JSON.stringify(s)} is not a pane id (like w1:p1)`);
  return s;
}

export function intArg(v: unknown, name: string, min: number, max: number): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`--${name} must be a whole number from ${min} to ${max}`);
  return n;
}

export function listArg(v: unknown): string[] {
  const items = Array.isArray(v) ? v : v === undefined ? [] : [v];
  return items.flatMap((x) => String(x).split(',')).map((s) => s.trim()).filter(Boolean);
}

/** Aligned columns for human output. */
export function table(rows: string[][]): string {
  if (!rows.length) return '';
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => [...(r[i] ?? '')].length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  ')).join('\n');
}

export function ago(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}
