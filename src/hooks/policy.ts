// The permission policy: `[governance.permissions]` maps a tool to allow | deny | prompt, with a "default" row.
import type { Config, Permission } from '../config/schema.js';
import { runsCommand } from './command-match.js';

export { runsCommand };

export type Governance = Config['governance'];

/** The tool's own row, else the "default" row, else allow (castellan's default config says allow too). */
export function permissionFor(tool: string, permissions: Governance['permissions']): { permission: Permission; rule: string } {
  if (Object.hasOwn(permissions, tool) && tool !== 'default') return { permission: permissions[tool], rule: tool };
  if (Object.hasOwn(permissions, 'default')) return { permission: permissions.default, rule: 'default' };
  return { permission: 'allow', rule: 'built-in default' };
}

const RANK: Record<Permission, number> = { allow: 0, prompt: 1, deny: 2 };

/**
 * `[governance.worktree]` for a call made inside an agent's worktree: the strictest row that names the tool or the
 * command's first words. Undefined when no row applies.
 */
export function worktreePermission(tool: string, argv: readonly string[], table: Governance['worktree']): { permission: Permission; rule: string } | undefined {
  let best: { permission: Permission; rule: string } | undefined;
  for (const [key, p] of Object.entries(table ?? {})) {
    const hit = key.includes(' ') ? runsCommand(argv, key) : key === tool || key === '*';
    if (hit && (!best || RANK[p] > RANK[best.permission])) best = { permission: p, rule: key };
  }
  return best;
}

/** Whether a call to this tool must carry a verified workflow plan. */
export function planRequired(tool: string, g: Governance): boolean {
  const pv = g.plan_verify;
  return pv.enabled && pv.high_risk_tools.includes(tool) && !pv.allowlisted_tools.includes(tool);
}
