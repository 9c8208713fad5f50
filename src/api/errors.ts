// API error codes and ApiError, kept free of zod so the hook bridge and CLI start fast.
import { RpcError } from '../platform/rpc-client.js';
export const ERROR_CODES = [
  'parse_error',
  'invalid_request',
  'unknown_method',
  'invalid_params',
  'line_too_long',
  'pane_not_found',
  'window_not_found',
  'no_space',
  'not_allowed',
  'limit_exceeded',
  'not_attached',
  'timeout',
  'pane_gone',
  'internal_error',
  'shutting_down',
  'denied',
  // src/worktree: no repository at the pane's cwd; a pane or id that is not an agent worktree; a refusal that left the
  // repository as it was (data.reason: dirty_base, branch_exists, unsupported_repo, uncommitted, worktree_missing, ...);
  // another git operation running on the repository; git itself failing.
  'not_a_repository',
  'not_a_worktree',
  'worktree_refused',
  'busy',
  'git_failed',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** Thrown by the server's methods; on the client side replies arrive as its base, RpcError, with the same code. */
export class ApiError extends RpcError {
  /** Plain instanceof (RpcError's looks at a mark every RpcError has): only a server method's ApiError is one. */
  static override [Symbol.hasInstance](x: unknown): boolean {
    return Function.prototype[Symbol.hasInstance].call(this, x);
  }
  declare readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, data?: unknown) {
    super(code, message, data);
  }
}
