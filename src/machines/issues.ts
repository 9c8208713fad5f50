// Bounded, printable messages out of zod issues (this room must not import src/api's formatter).
import type { z } from 'zod';
import { stripControls } from '../core/text.js';

export function formatIssues(e: z.ZodError): string {
  const cut = (s: string, n: number) => stripControls(s.length > n ? `${s.slice(0, n)}…` : s);
  const shown = e.issues.slice(0, 3).map((i) => cut(i.path.length ? `${i.path.map((k) => cut(String(k), 32)).join('.')}: ${i.message}` : i.message, 200));
  return shown.join('; ') + (e.issues.length > 3 ? `; and ${e.issues.length - 3} more` : '');
}
