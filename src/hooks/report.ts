// For `castellan config check`: every configured hook, whether it will run, and why not.
import type { Diagnostic, LoadedConfig } from '../config/load.js';
import { stripControls } from '../core/text.js';
import { untrustedLayers } from './governance-config.js';
import { matcherProblem } from './match.js';
import { planHooks } from './plan.js';
import { readTrust } from '../config/trust.js';

/** A configured hook in one line (`PreToolUse [shell]: ./check.sh`), safe to print. */
export function describeHook(h: { event: string; matcher?: string; command: string }): string {
  return stripControls(`${h.event}${h.matcher ? ` [${h.matcher}]` : ''}: ${h.command}`);
}

export interface HookRow {
  id: string;
  event: string;
  matcher?: string;
  command: string;
  layer: string;
  file: string;
  status: 'active' | 'inert';
  trust: string;
  reason?: string;
}

export function hookReport(loaded: LoadedConfig, trustFilePath: string): { hooks: HookRow[]; diagnostics: Diagnostic[] } {
  const { problem } = readTrust(trustFilePath);
  const planned = planHooks(loaded);
  const diagnostics: Diagnostic[] = [];
  if (problem) diagnostics.push({ severity: 'warning', file: trustFilePath, message: problem });
  const inertByFile = new Map<string, { count: number; reason: string }>();
  const hooks = planned.map((p): HookRow => {
    const bad = matcherProblem(p.hook.matcher);
    if (bad) diagnostics.push({ severity: 'warning', file: p.file, path: `hooks.hooks (${p.id})`, message: bad });
    if (p.inert) {
      const cur = inertByFile.get(p.file);
      inertByFile.set(p.file, { count: (cur?.count ?? 0) + 1, reason: p.inert });
    }
    return {
      id: p.id,
      event: p.hook.event,
      ...(p.hook.matcher ? { matcher: p.hook.matcher } : {}),
      command: p.hook.command,
      layer: p.layer,
      file: p.file,
      status: p.inert ? 'inert' : 'active',
      trust: p.trust,
      ...(p.inert ? { reason: p.inert } : {}),
    };
  });
  for (const [file, { count, reason }] of inertByFile) {
    diagnostics.push({ severity: 'warning', file, path: 'hooks.hooks', message: `${count} hook(s) inert: ${reason}` });
  }
  const untrusted = untrustedLayers(loaded);
  for (const l of loaded.layers) {
    if (untrusted.has(l.path) && l.value.governance) {
      diagnostics.push({ severity: 'warning', file: l.path, path: 'governance', message: 'this file is not trusted (or changed since): its governance settings can only tighten the policy until you run `castellan trust`' });
    }
  }
  return { hooks, diagnostics };
}
