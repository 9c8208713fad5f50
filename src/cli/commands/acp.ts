// `castellan acp -- AGENT ARGS`: serve an editor over the Agent Client Protocol (stdio), relaying to an ACP agent under governance.
import { ServerLink } from '../../hooks/emit.js';
import { defineCommand, EXIT, UsageError } from '../define-command.js';

export default defineCommand({
  name: 'acp',
  usage: 'castellan acp [--no-pane] -- AGENT [ARGS...]',
  summary: 'Be an ACP agent for an editor (Zed, JetBrains, Neovim) that relays to an ACP agent (gemini --acp) under castellan\'s governance.',
  details: [
    'Register `castellan acp -- gemini --acp` as the agent command in the editor. Every tool call and permission request of the',
    'agent goes through castellan (PreToolUse hooks, [governance.permissions], plan verify, PostToolUse); a denial reaches the',
    'editor as a failed tool call with castellan\'s reason. Governance events reach the editor as `_castellan/event`',
    'notifications, the server\'s event stream and the audit log. SessionStart/SessionEnd hooks fire on ACP sessions. With a',
    'server running, a pane shows the session log and its state (`castellan herd list`); --no-pane skips it. While the policy',
    'gates a tool, modes that run it without asking (set_mode yolo) are refused and agent flags such as --yolo stop the start',
    '(exit 2). See docs/acp.md.',
  ].join('\n'),
  options: { 'no-pane': { type: 'boolean' } },
  run: async (ctx, { values, rest }) => {
    if (!rest.length) throw new UsageError("give the agent after --, e.g. castellan acp -- gemini --acp");
    const { runAcpProxy } = await import('../../acp/index.js');
    const link = new ServerLink(ctx.paths.socket);
    try {
      const r = await runAcpProxy({
        command: rest,
        cwd: ctx.cwd,
        env: ctx.env,
        paths: ctx.paths,
        input: process.stdin,
        output: process.stdout,
        err: (t) => process.stderr.write(t),
        link,
        pane: values['no-pane'] !== true,
      });
      // A refused command line (code 2) was already said on stderr and to the editor.
      if (r.error && r.code !== 2) ctx.err(`castellan acp: ${r.error}`);
      return r.code === 0 ? EXIT.ok : r.code === 2 ? EXIT.usage : EXIT.error;
    } finally {
      link.close();
    }
  },
});
