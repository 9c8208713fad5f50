// The permission policy: `[governance.permissions]` maps a tool to allow | deny | prompt, with a "default" row.
import type { Config, Permission } from '../config/schema.js';

export type Governance = Config['governance'];

/** The tool's own row, else the "default" row, else allow (castellan's default config says allow too). */
export function permissionFor(tool: string, permissions: Governance['permissions']): { permission: Permission; rule: string } {
  if (Object.hasOwn(permissions, tool) && tool !== 'default') return { permission: permissions[tool], rule: tool };
  if (Object.hasOwn(permissions, 'default')) return { permission: permissions.default, rule: 'default' };
  return { permission: 'allow', rule: 'built-in default' };
}

const RANK: Record<Permission, number> = { allow: 0, prompt: 1, deny: 2 };
const words = (s: string) => s.trim().split(/\s+/).filter(Boolean);

/** The rest of `want` appears in order among the few words after `ws[i]` (`git -C dir push` runs `git push`). */
function follows(ws: readonly string[], i: number, want: readonly string[]): boolean {
  let k = 1;
  for (let j = i + 1; j < Math.min(ws.length, i + 9) && k < want.length; j++) if (ws[j] === want[k]) k++;
  return k === want.length;
}

/**
 * Does `argv` run the command that `key`'s words name? `git push` matches `git push origin`, `/usr/bin/git -C x push`,
 * and a `sh -c` line with those words anywhere. It errs on the side of matching (`git log --grep push` matches too):
 * these rows tighten, so a false match asks or denies, a missed one would let the call through.
 */
export function runsCommand(argv: readonly string[], key: string): boolean {
  const want = words(key);
  if (!want.length) return false;
  const base = (a: string | undefined) => (a ?? '').split('/').pop();
  if (base(argv[0]) === want[0] && follows(argv, 0, want)) return true;
  if (/^(sh|bash|dash|zsh)$/.test(base(argv[0]) ?? '') && argv[1] === '-c' && argv[2] !== undefined) {
    const ws = argv[2].slice(0, 1_000_000).split(/[\s;&|(){}`!<>$"']+/).filter(Boolean);
    for (let i = 0; i < ws.length; i++) if (base(ws[i]) === want[0] && follows(ws, i, want)) return true;
  }
  return false;
}

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
