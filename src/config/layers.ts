// Merges the user, project and local layers over the defaults: settings override, hooks add up.
import { DEFAULT_CONFIG, type Config, type Hook, type PartialConfig } from './schema.js';

const isTable = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);

/** Identity of a hook for de-duplication: the same event, command and matcher run once however often listed. */
export function hookKey(h: Pick<Hook, 'event' | 'command' | 'matcher'>): string {
  return JSON.stringify([h.event, h.command, h.matcher ?? null]);
}

/** Later tables win per key; arrays and scalars are replaced whole. Inputs are never mutated. */
function deepMerge(base: unknown, over: unknown): unknown {
  if (over === undefined) return structuredClone(base);
  if (!isTable(base) || !isTable(over)) return structuredClone(over);
  const out: Record<string, unknown> = structuredClone(base);
  for (const [k, v] of Object.entries(over)) out[k] = deepMerge(Object.hasOwn(base, k) ? base[k] : undefined, v);
  return out;
}

/**
 * Hooks from every layer, in layer order (lowest first), exact duplicates dropped. The first copy is
 * kept, so a hook a user already runs does not come to depend on trusting a project that repeats it.
 */
export function mergeHooks(layers: readonly PartialConfig[]): Hook[] {
  const seen = new Set<string>();
  const out: Hook[] = [];
  for (const layer of layers) {
    for (const h of layer.hooks?.hooks ?? []) {
      const key = hookKey(h);
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(structuredClone(h));
    }
  }
  return out;
}

/**
 * The effective config from layers ordered lowest precedence first (user, project, local):
 * tables deep-merge per key, so `[keys]` and `[governance.permissions]` merge entry by entry.
 */
export function mergeLayers(layers: readonly PartialConfig[], defaults: Config = DEFAULT_CONFIG): Config {
  let merged: unknown = defaults;
  for (const layer of layers) merged = deepMerge(merged, layer);
  const config = merged as Config;
  config.hooks = { ...config.hooks, hooks: mergeHooks([defaults as PartialConfig, ...layers]) };
  return config;
}
