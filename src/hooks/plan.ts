// Which hooks apply: every layer's hooks, de-duplicated, each marked active or inert (untrusted / changed file).
import { hookKey } from '../config/layers.js';
import type { LayerName, LoadedConfig } from '../config/load.js';
import type { Hook, HookEvent } from '../config/schema.js';
import { matches } from './match.js';
import { inertReason, type TrustStatus } from '../config/trust.js';

export const DEFAULT_HOOK_TIMEOUT_MS = 30_000;

export interface PlannedHook {
  hook: Hook;
  /** `id` from the config, else `<event>:<command>`. */
  id: string;
  layer: LayerName;
  file: string;
  /** Working directory of the command: the project root the config was found from. */
  cwd: string;
  timeoutMs: number;
  trust: TrustStatus;
  /** Set when the hook will not run, saying why. */
  inert?: string;
}

export const hookId = (h: Hook): string => h.id ?? `${h.event}:${h.command}`;

/**
 * All hooks in layer order (user, project, local). Duplicates (same event, command and matcher) run once;
 * when one copy comes from a trusted file, that copy is the one kept, so repeating a user hook in an
 * untrusted project neither runs it twice nor switches it off.
 */
export function planHooks(loaded: Pick<LoadedConfig, 'layers' | 'projectRoot'>): PlannedHook[] {
  const byKey = new Map<string, PlannedHook>();
  const order: string[] = [];
  for (const layer of loaded.layers) {
    const status: TrustStatus = layer.trust;
    for (const hook of layer.value.hooks?.hooks ?? []) {
      const planned: PlannedHook = {
        hook,
        id: hookId(hook),
        layer: layer.layer,
        file: layer.path,
        cwd: loaded.projectRoot,
        timeoutMs: hook.timeout_ms ?? DEFAULT_HOOK_TIMEOUT_MS,
        trust: status,
        ...(status === 'trusted' ? {} : { inert: inertReason(status, layer.path) }),
      };
      const key = hookKey(hook);
      const seen = byKey.get(key);
      if (!seen) {
        byKey.set(key, planned);
        order.push(key);
      } else if (seen.inert && !planned.inert) byKey.set(key, planned);
    }
  }
  return order.map((k) => byKey.get(k)!);
}

/**
 * Hooks for one event and subject (the tool for tool events, the plugin for session events), split into
 * those that run and those that would have run but are inert.
 */
export function hooksFor(planned: readonly PlannedHook[], event: HookEvent, subject: string | undefined): { run: PlannedHook[]; inert: PlannedHook[] } {
  const run: PlannedHook[] = [];
  const inert: PlannedHook[] = [];
  for (const p of planned) {
    if (p.hook.event !== event || !matches(p.hook.matcher, subject)) continue;
    (p.inert ? inert : run).push(p);
  }
  return { run, inert };
}
