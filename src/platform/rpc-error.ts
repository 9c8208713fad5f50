// The socket client's errors, apart from the client itself, so a caller can know them without loading node:net.
// (The hook bridge's raw pipe client, src/integrations/raw-pipe, throws the same ones.)

/** An error reply from the server (its `code`), or `timeout` / `shutting_down` (connection closed) on this side. */
export class RpcError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export class NotRunningError extends RpcError {
  constructor(readonly socket: string, cause?: string) {
    super('not_running', `no castellan server is running on ${socket}${cause ? ` (${cause})` : ''}`);
  }
}
