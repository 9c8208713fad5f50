// Which tools castellan's policy gates (would not simply allow), asked of the real pipeline without running or recording anything.
import { decidePreToolUse, type GovernOptions } from '../hooks/pipeline.js';

export interface Gate {
  tool: string;
  /** deny > hooks (a PreToolUse hook must see the call) > ask (the user must be asked). */
  kind: 'deny' | 'hooks' | 'ask';
  reason: string;
}

const RANK = { deny: 3, hooks: 2, ask: 1 } as const;

/**
 * The strictest gate among `tools` at `cwd`, or undefined when the policy allows them all outright. It uses the pipeline's
 * own decision (decidePreToolUse, with no link and no audit: a probe is not a decision), so a broken policy that the
 * loader turns into deny gates every tool here too.
 */
export async function strictestGate(tools: readonly string[], cwd: string, opts: GovernOptions): Promise<Gate | undefined> {
  const probe: GovernOptions = { ...opts, link: null, sink: undefined, onEvent: undefined, audit: false, prompt: 'defer' };
  let best: Gate | undefined;
  for (const tool of tools) {
    let g: Gate | undefined;
    try {
      // A command known only when it runs: command rules ("git push" = "deny" in an agent worktree) match it, so a tool
      // that such a rule would stop counts as gated too (command-match.ts counts `$ANY_COMMAND` as anything).
      const r = await decidePreToolUse({ tool, argv: ['/bin/sh', '-c', '$ANY_COMMAND'], cwd }, probe);
      if (!r) g = { tool, kind: 'hooks', reason: `PreToolUse hooks must see every ${tool} call` };
      else if (r.decision === 'deny') g = { tool, kind: 'deny', reason: r.reason ?? `castellan denies ${tool}` };
      else if (r.decision === 'ask') g = { tool, kind: 'ask', reason: r.reason ?? `the permission policy asks before ${tool} runs` };
    } catch (e) {
      g = { tool, kind: 'deny', reason: `governance error: ${(e as Error).message}` };
    }
    if (g && (!best || RANK[g.kind] > RANK[best.kind])) best = g;
  }
  return best;
}
