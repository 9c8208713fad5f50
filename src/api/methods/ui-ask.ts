// ui.ask: ask the user in an attached castellan UI to allow or deny something (a `prompt` permission); no answer in time is a denial.
import { z } from 'zod';
import { paneIdSchema } from '../../core/actions.js';
import { cleanName, cleanText } from '../../core/text.js';
import type { SessionApi } from '../context.js';
import { defineMethod } from '../define-method.js';

const NO_UI = 'no castellan UI attached';

/** What the server offers when it can show a question in attached clients (wired in the server, optional here). */
type AskFn = (q: { title: string; message: string; timeoutMs: number; paneId?: string }) => Promise<'allow' | 'deny'>;

export default defineMethod({
  name: 'ui.ask',
  description:
    'Ask the user in the attached castellan UI (terminal clients and open web pages) to allow or deny (used for `prompt` permissions). Answers {answer: "deny"} with a reason when no UI is attached, when the user denies, or when nobody answers within timeout_ms.',
  params: z
    .object({
      title: z.string().min(1).max(200),
      message: z.string().max(4000),
      timeout_ms: z.number().int().min(1).max(600_000).default(60_000),
      pane_id: paneIdSchema.optional(),
    })
    .strict(),
  result: z.object({ answer: z.enum(['allow', 'deny']), reason: z.string() }),
  handler: async ({ session }, p) => {
    const ask = (session as SessionApi & { ask?: AskFn }).ask;
    // A paired web page open on a phone is someone who can answer too (docs/web.md).
    const clients = Object.keys(session.state().clients ?? {}).length + (session.web?.status().pages ?? 0);
    if (typeof ask !== 'function' || clients === 0) return { answer: 'deny' as const, reason: NO_UI };
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((r) => {
      timer = setTimeout(() => r('timeout'), p.timeout_ms);
    });
    try {
      const q = { title: cleanName(p.title), message: cleanText(p.message), timeoutMs: p.timeout_ms, ...(p.pane_id ? { paneId: p.pane_id } : {}) };
      const answer = await Promise.race([ask.call(session, q), timeout]);
      if (answer === 'timeout') return { answer: 'deny' as const, reason: `no answer within ${p.timeout_ms} ms` };
      return answer === 'allow' ? { answer: 'allow' as const, reason: 'allowed in the castellan UI' } : { answer: 'deny' as const, reason: 'denied in the castellan UI' };
    } catch (e) {
      return { answer: 'deny' as const, reason: `could not ask in the castellan UI: ${(e as Error).message}` };
    } finally {
      clearTimeout(timer);
    }
  },
});
