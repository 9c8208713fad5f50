// The governance settings in force: trusted layers merge as usual; an untrusted repository file may only tighten them.
import { mergeLayers } from '../config/layers.js';
import type { LoadedConfig } from '../config/load.js';
import type { Permission } from '../config/schema.js';
import type { Governance } from './policy.js';

const RANK: Record<Permission, number> = { allow: 0, prompt: 1, deny: 2 };
const stricter = (a: Permission, b: Permission): Permission => (RANK[b] > RANK[a] ? b : a);

/** Repository layers whose current content is not trusted. */
export function untrustedLayers(loaded: Pick<LoadedConfig, 'layers'>): Set<string> {
  return new Set(loaded.layers.filter((l) => l.trust !== 'trusted').map((l) => l.path));
}

/**
 * A repository you just cloned must not be able to loosen your policy (turn your `shell = "prompt"` into
 * allow, switch plan verify off, allowlist a tool). So until its file is trusted, its governance section
 * only tightens: a permission applies when it is stricter, plan verify can only be switched on, and
 * high-risk tools only added; its allowlist is ignored.
 */
export function effectiveGovernance(loaded: Pick<LoadedConfig, 'layers'>): Governance {
  const untrusted = untrustedLayers(loaded);
  const g = structuredClone(mergeLayers(loaded.layers.filter((l) => !untrusted.has(l.path)).map((l) => l.value)).governance);
  for (const l of loaded.layers) {
    if (!untrusted.has(l.path)) continue;
    const over = l.value.governance;
    if (!over) continue;
    for (const [tool, p] of Object.entries(over.permissions ?? {})) {
      if (!p) continue;
      const current = Object.hasOwn(g.permissions, tool) ? g.permissions[tool] : (g.permissions.default ?? 'allow');
      g.permissions[tool] = stricter(current, p);
    }
    // Worktree rules only ever tighten (the stricter of them and the tool's permission applies), so an untrusted file's rows count as they are, made stricter still.
    for (const [key, p] of Object.entries(over.worktree ?? {})) if (p) g.worktree[key] = stricter(g.worktree[key] ?? 'allow', p);
    const pv = over.plan_verify;
    if (pv?.enabled === true) g.plan_verify.enabled = true;
    for (const t of pv?.high_risk_tools ?? []) if (!g.plan_verify.high_risk_tools.includes(t)) g.plan_verify.high_risk_tools.push(t);
  }
  return g;
}
