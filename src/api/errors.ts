// API error codes and ApiError, kept free of zod so the hook bridge and CLI start fast.
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
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}
