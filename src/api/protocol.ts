// The wire protocol: newline-delimited JSON requests, replies, notifications and error codes.
import { z } from 'zod';

export const PROTOCOL_VERSION = 1;
/** Longest request line the server accepts; longer lines get `line_too_long` and are discarded. */
export const MAX_LINE_BYTES = 4 * 1024 * 1024;

import type { ErrorCode } from './errors.js';
export { ApiError, ERROR_CODES, type ErrorCode } from './errors.js';

export const requestSchema = z.object({
  id: z.union([z.string().max(200), z.number()]).optional(),
  method: z.string().min(1).max(100),
  params: z.unknown().optional(),
});
export type Request = z.infer<typeof requestSchema>;

export interface ErrorReply {
  id: string | number | null;
  error: { code: ErrorCode; message: string; data?: unknown };
}
export interface ResultReply {
  id: string | number;
  result: unknown;
}

/** One readable message out of zod issues: `pane_id: expected string`. Bounded: hostile params can yield thousands of issues and megabyte keys. */
export function formatZodError(e: z.ZodError): string {
  const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}…` : s);
  const shown = e.issues.slice(0, 5).map((i) => cut(i.path.length ? `${i.path.map((k) => cut(String(k), 64)).join('.')}: ${i.message}` : i.message, 300));
  return shown.join('; ') + (e.issues.length > 5 ? `; and ${e.issues.length - 5} more` : '');
}
