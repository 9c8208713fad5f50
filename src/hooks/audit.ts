// The audit log: every hook run and governance decision as one JSON line, in a 0600 file under the state dir.
import { appendFileSync, chmodSync, mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

const checked = new Set<string>();

/** Keeps one record's size bounded: long strings and lists are cut (the log is for humans and tools, not a copy of the data). */
export function bound(v: unknown, depth = 0): unknown {
  if (typeof v === 'string') return v.length > 2000 ? `${v.slice(0, 2000)}…(${v.length} chars)` : v;
  if (Array.isArray(v)) {
    const items = v.slice(0, 64).map((x) => bound(x, depth + 1));
    return v.length > 64 ? [...items, `…(${v.length - 64} more)`] : items;
  }
  if (v && typeof v === 'object') {
    if (depth > 4) return '…';
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = bound(x, depth + 1);
    return out;
  }
  return v;
}

/**
 * Appends one record. Never throws: a full disk must not turn an allowed tool call into a crash, so a
 * failure is returned for the caller to mention. (Decisions are still enforced either way.)
 */
export function appendAudit(file: string, record: Record<string, unknown>): string | undefined {
  try {
    if (!checked.has(file)) {
      mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
      try {
        if ((statSync(file).mode & 0o777) !== 0o600) chmodSync(file, 0o600);
      } catch {
        /* created below with 0600 */
      }
      checked.add(file);
    }
    const line = JSON.stringify(bound({ ts: new Date().toISOString(), pid: process.pid, ...record })) + '\n';
    appendFileSync(file, line, { mode: 0o600 });
    return undefined;
  } catch (e) {
    return `cannot write the audit log ${file}: ${(e as Error).message}`;
  }
}
