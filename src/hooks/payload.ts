// What a hook command receives: one JSON payload line on stdin and a controlled environment.
import type { HookEvent } from '../config/schema.js';

/** Everything known about the event a hook runs for. */
export interface HookContext {
  event: HookEvent;
  session: string;
  /** Where the operation happens (the agent's / tool's working directory). */
  cwd: string;
  paneId?: string;
  socket?: string;
  tool?: string;
  argv?: readonly string[];
  agentId?: string;
  success?: boolean;
  exitCode?: number | null;
  goalId?: string;
  plugin?: string;
  status?: string;
  /** Sub-harness sessions: the pane that delegated, and the depth in the delegation tree (root 0). */
  parentPane?: string;
  depth?: number;
  /** SessionStart of an agent resumed into its earlier conversation after a restart. */
  resumed?: boolean;
  /** The agent's git worktree and branch when `cwd` is inside one castellan made (src/worktree). */
  worktree?: string;
  branch?: string;
}

/** Variables a hook inherits from castellan's environment; everything else (tokens, keys) stays out. */
const PASS = ['PATH', 'HOME', 'USER', 'LOGNAME', 'LANG', 'TERM', 'TMPDIR', 'SHELL', 'TZ'];
const PASS_PREFIX = ['LC_'];
const DEFAULT_PATH = '/usr/local/bin:/usr/bin:/bin';

/** The one JSON line a hook reads on stdin. Fields are always present (null when unknown). */
export function buildPayload(c: HookContext, now = new Date()): Record<string, unknown> {
  const common = { event: c.event, pane_id: c.paneId ?? null, session: c.session, cwd: c.cwd, worktree: c.worktree ?? null, branch: c.branch ?? null, timestamp: now.toISOString() };
  switch (c.event) {
    case 'SessionStart':
      return { ...common, goal_id: c.goalId ?? null, plugin: c.plugin ?? null, parent_pane: c.parentPane ?? null, depth: c.depth ?? null, resumed: c.resumed ?? false };
    case 'SessionEnd':
      return { ...common, goal_id: c.goalId ?? null, status: c.status ?? null, plugin: c.plugin ?? null, exit_code: c.exitCode ?? null, parent_pane: c.parentPane ?? null, depth: c.depth ?? null };
    case 'PreToolUse':
      return { ...common, tool: c.tool ?? null, argv: c.argv ?? [], agent_id: c.agentId ?? null, goal_id: c.goalId ?? null };
    case 'PostToolUse':
      return { ...common, tool: c.tool ?? null, argv: c.argv ?? [], success: c.success ?? false, exit_code: c.exitCode ?? null, agent_id: c.agentId ?? null, goal_id: c.goalId ?? null };
  }
}

/**
 * The environment of a hook: an allow-list of the caller's variables plus CASTELLAN_* describing the event.
 * No CASTELLAN_* variable is passed through from outside, and nothing like BASH_ENV/ENV that would make
 * `/bin/sh` read a startup file.
 */
export function hookEnv(base: NodeJS.ProcessEnv, c: HookContext, extra: { hookId: string; projectRoot: string; configFile: string }): Record<string, string> {
  return controlledEnv(base, {
    CASTELLAN_HOOK_EVENT: c.event,
    CASTELLAN_HOOK_ID: extra.hookId,
    CASTELLAN_SESSION: c.session,
    CASTELLAN_SOCKET: c.socket,
    CASTELLAN_PANE_ID: c.paneId,
    CASTELLAN_TOOL: c.tool,
    CASTELLAN_AGENT_ID: c.agentId,
    CASTELLAN_GOAL_ID: c.goalId,
    CASTELLAN_PLUGIN: c.plugin,
    CASTELLAN_CWD: c.cwd,
    CASTELLAN_WORKTREE: c.worktree,
    CASTELLAN_BRANCH: c.branch,
    CASTELLAN_PROJECT_ROOT: extra.projectRoot,
    CASTELLAN_CONFIG_FILE: extra.configFile,
  });
}

/**
 * Any hook command's environment (governance and per-agent hooks alike): the allow-listed variables of `base`,
 * a default PATH, and the given CASTELLAN_* variables that have a value.
 */
export function controlledEnv(base: NodeJS.ProcessEnv, vars: Record<string, string | undefined | null>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) {
    if (v === undefined) continue;
    if (PASS.includes(k) || PASS_PREFIX.some((p) => k.startsWith(p))) env[k] = v;
  }
  env.PATH ||= DEFAULT_PATH;
  for (const [k, v] of Object.entries(vars)) if (v !== undefined && v !== null && v !== '') env[k] = v;
  return env;
}
