// The socket client's errors, apart from the client itself, so a caller can know them without loading node:net.
// (The hook bridge's raw pipe client, src/integrations/raw-pipe, throws the same ones.)

// The CLI's fast entry (dist/cli/main.cjs) and its ES module chunks each carry a copy of this module
// (scripts/bundle-cli.mjs): an error thrown by one copy is checked with `instanceof` by the other, so instanceof goes
// by a mark on the instance that both copies know (Symbol.for), not by the class object.
const RPC = Symbol.for('castellan.RpcError');
const NOT_RUNNING = Symbol.for('castellan.NotRunningError');
const marked = (x: unknown, mark: symbol): boolean => typeof x === 'object' && x !== null && (x as Record<symbol, unknown>)[mark] === true;

/** An error reply from the server (its `code`), or `timeout` / `shutting_down` (connection closed) on this side. */
export class RpcError extends Error {
  static override [Symbol.hasInstance](x: unknown): boolean {
    return marked(x, RPC);
  }
  constructor(
    readonly code: string,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    Object.defineProperty(this, RPC, { value: true });
  }
}

export class NotRunningError extends RpcError {
  static override [Symbol.hasInstance](x: unknown): boolean {
    return marked(x, NOT_RUNNING);
  }
  constructor(readonly socket: string, cause?: string) {
    super('not_running', `no castellan server is running on ${socket}${cause ? ` (${cause})` : ''}`);
    Object.defineProperty(this, NOT_RUNNING, { value: true });
  }
}
