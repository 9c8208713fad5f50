// Dispatch one request line: parse, validate with the method's schema, run it, and shape the reply.
import type { MethodContext } from './context.js';
import { METHOD_TABLE } from './methods/index.js';
import { ApiError, type ErrorReply, formatZodError, requestSchema } from './protocol.js';

export type Reply = ErrorReply | { id: string | number; result: unknown } | null;

function errorReply(id: string | number | null, e: unknown): ErrorReply {
  if (e instanceof ApiError) return { id, error: { code: e.code, message: e.message, ...(e.data !== undefined ? { data: e.data } : {}) } };
  const message = e instanceof Error ? e.message : String(e);
  return { id, error: { code: 'internal_error', message } };
}

/** Handles one line. Returns the reply to send, or null for a notification (a request without an id). */
export async function dispatchLine(line: string, ctx: Omit<MethodContext, 'requestId'>): Promise<Reply> {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch (e) {
    return { id: null, error: { code: 'parse_error', message: `not valid JSON: ${(e as Error).message}` } };
  }
  const req = requestSchema.safeParse(raw);
  if (!req.success) {
    const id = raw && typeof raw === 'object' && 'id' in raw && (typeof raw.id === 'string' || typeof raw.id === 'number') ? raw.id : null;
    return { id, error: { code: 'invalid_request', message: `bad request: ${formatZodError(req.error)}` } };
  }
  const { id, method, params } = req.data;
  const def = METHOD_TABLE.get(method);
  if (!def) return id === undefined ? null : { id, error: { code: 'unknown_method', message: `unknown method "${method}"` } };
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
