// Dispatch one request line: parse, validate with the method's schema, run it, and shape the reply.
import type { MethodContext } from './context.js';
import { jsonShapeProblem, leadingId } from './json-guard.js';
import type { MethodDef } from './define-method.js';
import { METHOD_TABLE } from './methods/index.js';
import { ApiError, type ErrorReply, formatZodError, requestSchema } from './protocol.js';
import { fromRoom } from './room-errors.js';

export type Reply = ErrorReply | { id: string | number; result: unknown } | null;

function errorReply(id: string | number | null, thrown: unknown): ErrorReply {
  const e = fromRoom(thrown);
  if (e instanceof ApiError) return { id, error: { code: e.code, message: e.message, ...(e.data !== undefined ? { data: e.data } : {}) } };
  const message = e instanceof Error ? e.message : String(e);
  return { id, error: { code: 'internal_error', message } };
}

/** The id to answer a malformed request with: only one the envelope schema would accept, so a 4 MiB id is not echoed. */
function salvageId(raw: unknown): string | number | null {
  if (!raw || typeof raw !== 'object' || !('id' in raw)) return null;
  const id = requestSchema.shape.id.safeParse(raw.id);
  return id.success && id.data !== undefined ? id.data : null;
}

/**
 * A notification (no id) to a method with a `quick` check that accepts its params: the envelope and params schemas
 * are skipped. Only own properties count (JSON.parse makes `__proto__` an own key, never a prototype).
 */
function quickNotification(raw: unknown): { def: MethodDef; params: unknown } | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const r = raw as { id?: unknown; method?: unknown; params?: unknown };
  if (Object.hasOwn(r, 'id') || typeof r.method !== 'string' || !Object.hasOwn(r, 'method')) return undefined;
  const def = METHOD_TABLE.get(r.method);
  if (!def?.quick || !Object.hasOwn(r, 'params')) return undefined;
  const params = def.quick(r.params);
  return params === undefined ? undefined : { def, params };
}

/** Handles one line (its bytes, as read off the socket). Returns the reply to send, or null for a notification (a request without an id). */
export async function dispatchLine(line: Uint8Array | string, ctx: Omit<MethodContext, 'requestId'>): Promise<Reply> {
  const bytes = typeof line === 'string' ? Buffer.from(line) : line;
  const tooBig = jsonShapeProblem(bytes);
  if (tooBig) return { id: leadingId(bytes), error: { code: 'invalid_params', message: `request ${tooBig}` } };
  let raw: unknown;
  try {
    raw = JSON.parse(typeof line === 'string' ? line : Buffer.from(line.buffer, line.byteOffset, line.length).toString('utf8'));
  } catch (e) {
    return { id: null, error: { code: 'parse_error', message: `not valid JSON: ${(e as Error).message.slice(0, 200)}` } };
  }
  const quick = quickNotification(raw);
  if (quick) {
    try {
      await quick.def.handler({ ...ctx, requestId: undefined }, quick.params);
    } catch {
      // A notification has no one to answer, as below.
    }
    return null;
  }
  const req = requestSchema.safeParse(raw);
  if (!req.success) return { id: salvageId(raw), error: { code: 'invalid_request', message: `bad request: ${formatZodError(req.error)}` } };
  const { id, method, params } = req.data;
  const def = METHOD_TABLE.get(method);
  if (!def) return id === undefined ? null : { id, error: { code: 'unknown_method', message: `unknown method "${method.slice(0, 100)}"` } };
  const parsed = def.params.safeParse(params === null ? undefined : params);
  if (!parsed.success) {
    return id === undefined ? null : { id, error: { code: 'invalid_params', message: `${method}: ${formatZodError(parsed.error)}` } };
  }
  try {
    const result = await def.handler({ ...ctx, requestId: id }, parsed.data);
    return id === undefined ? null : { id, result };
  } catch (e) {
    return id === undefined ? null : errorReply(id, e);
  }
}
