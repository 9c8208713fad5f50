// The CLI's word when the policy seen from here fails closed: said on stderr by commands that show the herd's state.
import { loadConfig } from '../config/load.js';
import { readTrust } from '../config/trust.js';
import { loadPolicy } from '../hooks/policy-load.js';
import type { CliContext } from './define-command.js';

/** `castellan: warning: the policy cannot be used as written, ...` for this directory's config, else undefined. */
export function policyWarning(ctx: Pick<CliContext, 'cwd' | 'paths'>): string | undefined {
  try {
    const loaded = loadConfig({ cwd: ctx.cwd, home: ctx.paths.home, trust: readTrust(ctx.paths.trustFile).data });
    const broken = loadPolicy(loaded).broken;
    return broken ? `castellan: warning: ${broken}` : undefined;
  } catch (e) {
    return `castellan: warning: the policy could not be checked (${(e as Error).message}); tool calls are denied`;
  }
}
