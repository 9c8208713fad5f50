// The CLI's word when the policy seen from here fails closed: said on stderr by commands that show the herd's state.
import { existsSync } from 'node:fs';
import { findProjectRoot, layerPaths } from '../config/layer-paths.js';
import type { CliContext } from './define-command.js';

/** `castellan: warning: the policy cannot be used as written, ...` for this directory's config, else undefined. */
export async function policyWarning(ctx: Pick<CliContext, 'cwd' | 'paths'>): Promise<string | undefined> {
  try {
    // No config file at all is the default policy: skip loading the schema (~17 ms of a CLI call's CPU).
    const files = Object.values(layerPaths(findProjectRoot(ctx.cwd, { home: ctx.paths.home }), ctx.paths.home));
    if (!files.some((f) => existsSync(f))) return undefined;
    const [{ loadConfig }, { readTrust }, { loadPolicy }] = await Promise.all([import('../config/load.js'), import('../config/trust.js'), import('../hooks/policy-load.js')]);
    const loaded = loadConfig({ cwd: ctx.cwd, home: ctx.paths.home, trust: readTrust(ctx.paths.trustFile).data });
    const broken = loadPolicy(loaded).broken;
    return broken ? `castellan: warning: ${broken}` : undefined;
  } catch (e) {
    return `castellan: warning: the policy could not be checked (${(e as Error).message}); tool calls are denied`;
  }
}
