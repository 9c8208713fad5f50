// The door to src/worktree: the server's manager, the marker check governance uses, and the types callers see.
export { WorktreeManager, apiError, type Target, type WorktreeHost } from './manager.js';
export { agentWorktreeAt } from './where.js';
export type { WorktreeRecord, ChangeSummary } from './record.js';
