// The worktree room's own typed error: a stable reason code the API layer maps to its error codes (the room never imports src/api).
/**
 * Why a worktree operation was refused or failed, in words for the user. `code` is the reason: `not_a_worktree`,
 * `pane_not_found`, `not_a_repository`, `no_commits`, `invalid_params`, `busy`, `timeout`, `git_failed`, `git_missing`,
 * or a refusal that left the repository as it was (`dirty_base`, `branch_exists`, `uncommitted`, `held_work`, ...).
 */
export class WorktreeError extends Error {
  override readonly name = 'WorktreeError';
  constructor(
    message: string,
    readonly code: string = 'git_failed',
    /** git's own stderr, when git failed. */
    readonly detail?: string,
  ) {
    super(message);
  }
}
