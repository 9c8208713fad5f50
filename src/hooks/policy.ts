// The permission policy: `[governance.permissions]` maps a tool to allow | deny | prompt, with a "default" row.
import type { Config, Permission } from '../config/schema.js';

export type Governance = Config['governance'];

/** The tool's own row, else the "default" row, else allow (castellan's default config says allow too). */
export function permissionFor(tool: string, permissions: Governance['permissions']): { permission: Permission; rule: string } {
  if (Object.hasOwn(permissions, tool) && tool !== 'default') return { permission: permissions[tool], rule: tool };
  if (Object.hasOwn(permissions, 'default')) return { permission: permissions.default, rule: 'default' };
  return { permission: 'allow', rule: 'built-in default' };
}

/** Whether a call to this tool must carry a verified workflow plan. */
export function planRequired(tool: string, g: Governance): boolean {
  const pv = g.plan_verify;
  return pv.enabled && pv.high_risk_tools.includes(tool) && !pv.allowlisted_tools.includes(tool);
}
