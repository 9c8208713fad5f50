// Errors the capability rooms throw in their own types, as the API's error codes: the rooms never import src/api.
import { WorktreeError } from '../worktree/errors.js';
import { ApiError, type ErrorCode } from './errors.js';

/** Reasons that are API codes of their own; every other worktree reason is a refusal (worktree_refused, data.reason). */
const WORKTREE_CODES: Record<string, ErrorCode> = {
  not_a_worktree: 'not_a_worktree',
  pane_not_found: 'pane_not_found',
  internal_error: 'internal_error',
  not_a_repository: 'not_a_repository',
  no_commits: 'not_a_repository',
  invalid_params: 'invalid_params',
  busy: 'busy',
  timeout: 'timeout',
  git_failed: 'git_failed',
  git_missing: 'git_failed',
};
/** Codes that were plain ApiErrors before the room had its own type: no data.reason, as before. */
const BARE = new Set(['not_a_worktree', 'pane_not_found', 'internal_error']);

/** A room's error as an ApiError (a stable code, the room's reason kept in data); anything else unchanged. */
export function fromRoom(e: unknown): unknown {
  if (!(e instanceof WorktreeError)) return e;
  return new ApiError(WORKTREE_CODES[e.code] ?? 'worktree_refused', e.message, BARE.has(e.code) ? undefined : { reason: e.code });
}
