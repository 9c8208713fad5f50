// A JSON-RPC 2.0 peer over newline-delimited stdio, as MCP's stdio transport specifies: what `castellan mcp` needs, no more.
//
// Why not the MCP SDK: for a two-tool stdio server it brought 14 MB of packages into every install (an HTTP
// stack: express, hono, ajv, jose, ...) that castellan never runs. The wire format is small and fixed: one JSON
// object per line, requests answered by id, notifications not answered. test/hooks/mcp.test.ts drives this
// server with the SDK's own client (a devDependency) to hold the two compatible.
import type { Readable, Writable } from 'node:stream';

/** One message may carry a large command or plan, not more: the rest of that line is dropped, unread. */
export const MAX_MESSAGE_BYTES = 8 * 1024 * 1024;

export const RPC = { parseError: -32700, invalidRequest: -32600, methodNotFound: -32601, invalidParams: -32602, internal: -32603 } as const;

/** Thrown by a handler to answer with this JSON-RPC error. */
export class RpcFault extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** Answers a request (resolve with its result, throw RpcFault for an error); for a notification the value is ignored. */
export type RpcHandler = (method: string, params: unknown, isNotification: boolean) => Promise<unknown>;

type Id = string | number | null;

const isId = (v: unknown): v is string | number => typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));

/** Serves requests from `input` until it ends; replies go to `output`, one line each. */
export function serveJsonRpc(input: Readable, output: Writable, handle: RpcHandler, maxBytes = MAX_MESSAGE_BYTES): Promise<void> {
  const send = (msg: object) => {
    if (!output.writableEnded && !output.destroyed) output.write(JSON.stringify({ jsonrpc: '2.0', ...msg }) + '\n');
  };
  const fail = (id: Id, code: number, message: string) => send({ id, error: { code, message } });

  const onMessage = (text: string) => {
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch {
      return fail(null, RPC.parseError, 'parse error: not JSON');
    }
    if (!msg || typeof msg !== 'object' || Array.isArray(msg)) return fail(null, RPC.invalidRequest, 'invalid request: expected one JSON-RPC object (no batches)');
    const m = msg as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
    const id: Id = isId(m.id) ? m.id : null;
    // A response to us: this server sends no requests, so there is nothing to match it with.
    if (m.method === undefined && ('result' in m || 'error' in m)) return;
    if (m.jsonrpc !== '2.0' || typeof m.method !== 'string' || m.method.length > 256 || ('id' in m && m.id !== null && !isId(m.id))) {
      return fail(id, RPC.invalidRequest, 'invalid request: needs jsonrpc "2.0", a method name and a string or number id');
    }
    const notification = !('id' in m);
    handle(m.method, m.params, notification).then(
      (result) => notification || send({ id, result: result ?? {} }),
      (e) => notification || fail(id, e instanceof RpcFault ? e.code : RPC.internal, e instanceof Error ? e.message : String(e)),
    );
  };

  return new Promise((resolve) => {
    let parts: Buffer[] = [];
    let size = 0;
    let dropping = false;
    input.on('data', (chunk: Buffer | string) => {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      let start = 0;
      for (let i = buf.indexOf(0x0a); i !== -1; i = buf.indexOf(0x0a, start)) {
        const piece = buf.subarray(start, i);
        start = i + 1;
        if (dropping) {
          dropping = false;
          continue;
        }
        if (size + piece.length > maxBytes) fail(null, RPC.invalidRequest, `message over ${maxBytes} bytes`);
        else {
          const line = (size ? Buffer.concat([...parts, piece]) : piece).toString('utf8').replace(/\r$/, '');
          if (line.trim()) onMessage(line);
        }
        parts = [];
        size = 0;
      }
      const rest = buf.subarray(start);
      if (dropping || !rest.length) return;
      if (size + rest.length > maxBytes) {
        fail(null, RPC.invalidRequest, `message over ${maxBytes} bytes`);
        parts = [];
        size = 0;
        dropping = true;
      } else {
        parts.push(Buffer.from(rest));
        size += rest.length;
      }
    });
    input.once('end', () => resolve());
    input.once('close', () => resolve());
    input.once('error', () => resolve());
  });
}
