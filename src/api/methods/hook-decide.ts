// hook.decide: the hook bridge asks the server, which has governance loaded already, to judge one agent tool call.
import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { paneIdSchema } from '../../core/actions.js';
import { resolvePaths, type Paths } from '../../platform/paths.js';
import type { MethodContext } from '../context.js';
import { defineMethod } from '../define-method.js';
import eventsEmit from './events-emit.js';

/** A path as the bridge resolved it: absolute, no NUL, a sane length. */
const pathSchema = z
  .string()
  .min(1)
  .max(4096)
  .refine((p) => isAbsolute(p) && !p.includes('\0'), 'must be an absolute path without NUL');

const params = z
  .object({
    phase: z.enum(['pre', 'post']),
    tool: z.string().min(1).max(200),
    argv: z.array(z.string().max(1024 * 1024)).max(10_000),
    cwd: pathSchema,
    /** Only the fields plan verify reads from the call's input (the rest, a Write's whole file, stays with the bridge). */
    plan: z.object({ workflow_plan: z.unknown().optional(), tool_workflow: z.unknown().optional(), workflow_step: z.string().max(1024 * 1024).optional() }).strict().optional(),
    success: z.boolean().optional(),
    pane_id: paneIdSchema.optional(),
    agent_id: z.string().min(1).max(300).optional(),
    goal_id: z.string().min(1).max(300).optional(),
    prompt: z.enum(['defer', 'ui']).default('ui'),
    /** The bridge's own paths: the server decides only when they are its own (same config home, trust store, audit log). */
    home: pathSchema,
    trust_file: pathSchema,
    audit_log: pathSchema,
    session: z.string().min(1).max(64),
    pid: z.number().int().positive().optional(),
    /** Epoch ms after which the bridge has stopped waiting and decides itself: the server then does nothing (no double record). */
    deadline: z.number().int().nonnegative().optional(),
  })
  .strict();

let ownPaths: Paths | undefined;

/** Why the server leaves this call to the bridge, or undefined when it may decide it. */
function notOurs(p: z.output<typeof params>, session: string): string | undefined {
  ownPaths ??= resolvePaths({ env: process.env });
  if (p.home !== ownPaths.home || p.trust_file !== ownPaths.trustFile || p.audit_log !== ownPaths.auditLog) return 'the bridge uses another home or state directory';
  if (p.session !== session) return 'the bridge names another session';
  return undefined;
}

/** Governance events reach subscribers exactly as a bridge's events.emit would send them (same checks, same cleaning). */
function sinkFor(ctx: MethodContext) {
  return {
    emit(e: { type: string; [k: string]: unknown }) {
      const parsed = eventsEmit.params.safeParse(e);
      if (!parsed.success) return;
      try {
        void eventsEmit.handler(ctx, parsed.data);
      } catch {
        /* too large for an event: it is in the audit log */
      }
    },
    flush: async () => undefined,
  };
}

export default defineMethod({
  name: 'hook.decide',
  description:
    'For the hook bridge: judge one agent tool call (`phase: "pre"`) or record its result (`"post"`) with the governance config seen from `cwd`, emitting and auditing as the bridge would. Returns `decided: false` (and does nothing) when the call needs a hook process or a question in the UI, when `home`, `trust_file`, `audit_log` or `session` are not the server\'s own, or past `deadline` (epoch ms): the bridge then decides itself.',
  params,
  result: z.union([
    z.object({ decided: z.literal(true), decision: z.enum(['allow', 'deny', 'ask']), source: z.string(), reason: z.string().optional(), ok: z.boolean().optional() }),
    z.object({ decided: z.literal(false), why: z.string() }),
  ]),
  handler: async (ctx, p) => {
    const why = notOurs(p, ctx.session.session);
    if (why) return { decided: false as const, why };
    // Loaded on the first call only: a server whose panes never run an agent does not pay for the pipeline.
    const { decidePreToolUse, recordPostToolUse } = await import('../../hooks/pipeline.js');
    if (p.deadline !== undefined && Date.now() > p.deadline) return { decided: false as const, why: 'past the bridge\'s deadline' };
    const opts = {
      env: p.goal_id ? { CASTELLAN_GOAL_ID: p.goal_id } : {},
      paths: ownPaths!,
      link: null,
      sink: sinkFor(ctx),
      prompt: p.prompt,
      ...(p.pid ? { auditPid: p.pid } : {}),
    };
    const scope = { agentId: p.agent_id, paneId: p.pane_id, cwd: p.cwd };
    if (p.phase === 'post') {
      const r = await recordPostToolUse({ tool: p.tool, argv: p.argv, success: p.success ?? true, ...scope }, opts);
      return r ? { decided: true as const, decision: 'allow' as const, source: 'policy', ok: r.ok } : { decided: false as const, why: 'a PostToolUse hook runs for it' };
    }
    const r = await decidePreToolUse({ tool: p.tool, argv: p.argv, toolInput: p.plan ?? {}, ...scope }, opts);
    if (!r) return { decided: false as const, why: 'a PreToolUse hook or a question in the UI decides it' };
    return { decided: true as const, decision: r.decision, source: r.source, ...(r.reason ? { reason: r.reason } : {}) };
  },
});
