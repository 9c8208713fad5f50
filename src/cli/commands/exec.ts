// `castellan exec -- CMD...`: the shell plugin: run one command through PreToolUse → policy → plan verify → run → PostToolUse.
import { ServerLink } from '../../hooks/emit.js';
import { exitStatus, runForeground } from '../../hooks/foreground.js';
import { governPostToolUse, governPreToolUse, type GovEvent } from '../../hooks/pipeline.js';
import { readPlanFile } from '../../hooks/plan-file.js';
import { defineCommand, UsageError } from '../define-command.js';

/** sysexits.h EX_NOPERM: the command was not run because governance denied it. */
export const EXIT_DENIED = 77;

export default defineCommand({
  name: 'exec',
  usage: 'castellan exec [--agent-id ID] [--plan FILE] [--step ID] [--json] -- COMMAND [ARG...]',
  summary: 'Run a command as a governed `shell` tool call: hooks, permission policy and plan verify decide first.',
  details: [
    'The command runs only if the policy allows it: [governance.permissions] (allow / deny / prompt in the UI),',
    'PreToolUse hooks (a non-zero exit denies, its stderr is the reason) and, when [governance.plan_verify] is',
    'enabled, a workflow plan (--plan FILE: JSON, YAML or TOML, the plan or {workflow_plan: ...}) that the call is a step of.',
    'Exit codes: the command\'s own; 77 (EX_NOPERM) when denied, with the reason on stderr; 127 not found; 1 if a',
    'PostToolUse hook failed after a successful command. --json prints every governance event as a JSON line on stdout.',
  ].join('\n'),
  options: { 'agent-id': { type: 'string' }, plan: { type: 'string' }, step: { type: 'string' }, json: { type: 'boolean' } },
  run: async (ctx, { values, rest }) => {
    if (!rest.length) throw new UsageError('give the command after --, e.g. castellan exec -- git status');
    const agentId = values['agent-id'] !== undefined ? String(values['agent-id']) : ctx.env.CASTELLAN_AGENT_ID || undefined;
    const paneId = ctx.env.CASTELLAN_PANE_ID || undefined;
    let plan: unknown;
    let planError: string | undefined;
    if (values.plan !== undefined) {
      try {
        plan = await readPlanFile(String(values.plan));
      } catch (e) {
        planError = `cannot use the plan file: ${(e as Error).message}`;
      }
    }
    const onEvent = values.json ? (e: GovEvent) => ctx.out(JSON.stringify(e)) : undefined;
    const link = new ServerLink(ctx.paths.socket);
    const opts = { env: ctx.env, paths: ctx.paths, link, onEvent };
    try {
      const toolInput = { argv: rest, ...(plan !== undefined ? { workflow_plan: plan } : {}), ...(values.step !== undefined ? { workflow_step: String(values.step) } : {}) };
      const pre = await governPreToolUse({ tool: 'shell', argv: rest, agentId, paneId, cwd: ctx.cwd, toolInput, ...(planError ? { planError } : {}) }, opts);
      if (pre.decision !== 'allow') {
        ctx.err(`castellan exec: denied: ${pre.reason ?? 'not allowed'}`);
        return EXIT_DENIED;
      }
      const r = await runForeground(rest, { cwd: ctx.cwd, env: ctx.env });
      if (r.error) ctx.err(`castellan exec: ${rest[0]}: ${r.error.code === 'ENOENT' ? 'command not found' : r.error.message}`);
      const code = exitStatus(r);
      const post = await governPostToolUse({ tool: 'shell', argv: rest, success: code === 0, exitCode: code, agentId, paneId, cwd: ctx.cwd }, opts);
      if (!post.ok) {
        ctx.err(`castellan exec: PostToolUse hook failed: ${post.reason}`);
        return code === 0 ? 1 : code;
      }
      return code;
    } finally {
      link.close();
    }
  },
});
