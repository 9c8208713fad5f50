// events.emit: publish a governance event from a client (a hook bridge, `castellan exec`) to every subscriber.
import { z } from 'zod';
import { paneIdSchema } from '../../core/actions.js';
import { cleanText } from '../../core/text.js';
import { defineMethod } from '../define-method.js';
import { ApiError } from '../protocol.js';

/** Only governance vocabulary may be injected; pane, window and agent-state events stay the server's own. */
const ALLOWED = /^(hook_|PlanVerify|governance_)[A-Za-z0-9_]*$/;
const MAX_BYTES = 64 * 1024;

// Nesting is bounded before parsing (the dispatcher refuses params deeper than 64 levels); this keeps events shallower still.
function clean(v: unknown, depth = 0): unknown {
  if (typeof v === 'string') return cleanText(v, 8000);
  if (Array.isArray(v)) return depth > 6 ? null : v.slice(0, 256).map((x) => clean(x, depth + 1));
  if (v && typeof v === 'object') {
    if (depth > 6) return null;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = clean(x, depth + 1);
    return out;
  }
  return v;
}

export default defineMethod({
  name: 'events.emit',
  description:
    'Publish an event to subscribers (events.subscribe) and attached UIs. Only types starting with `hook_`, `PlanVerify` or `governance_` are accepted; `seq` and `ts` are stamped by the server. Give `pane` to scope it to a pane.',
  params: z
    .object({
      type: z.string().max(64).regex(ALLOWED, 'type must start with hook_, PlanVerify or governance_'),
      pane: paneIdSchema.optional(),
    })
    .catchall(z.unknown()),
  result: z.object({ emitted: z.literal(true) }),
  handler: ({ session }, p) => {
    if (Buffer.byteLength(JSON.stringify(p)) > MAX_BYTES) throw new ApiError('invalid_params', `events.emit: event larger than ${MAX_BYTES} bytes`);
    const { seq: _seq, ts: _ts, ...rest } = clean(p) as Record<string, unknown>;
    session.emit({ ...rest, type: p.type });
    return { emitted: true as const };
  },
});
