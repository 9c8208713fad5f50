// The door to src/worktree for the server and its methods. Two light side doors, for callers that must start fast:
// where.ts (governance: is this cwd an agent worktree? no git, no manager) and review/ (the `castellan review` program).
export { WorktreeManager, type Target, type WorktreeHost } from './manager.js';
export { WorktreeError } from './errors.js';
export { startInWorktree, type WorktreeStart } from './start.js';
export { openReview } from './open-review.js';
export { agentWorktreeAt } from './where.js';
export type { WorktreeRecord, ChangeSummary } from './record.js';
export type { Work, WorkKind } from './held.js';
