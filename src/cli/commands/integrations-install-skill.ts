// `castellan integrations install-skill AGENT...`: copies castellan's agent skill (docs/agent-skill/SKILL.md) where each agent finds skills.
import { installTarget, INSTALL_OPTIONS } from '../../integrations/cli-support.js';
import { backupStamp } from '../../integrations/install.js';
import { installSkill } from '../../integrations/skill.js';
import { defineCommand, EXIT, UsageError } from '../define-command.js';

export default defineCommand({
  name: 'integrations install-skill',
  usage: 'castellan integrations install-skill claude|codex|gemini|pi|copilot|qwen|opencode|kilo|all... [--user|--project] [--dir DIR] [--dry-run] [--use-path]',
  summary: 'Install the castellan agent skill (spawn a helper pane, prompt it, wait, read its answer) into agents\' skill folders.',
  details: [
    'All four read Agent Skills (a folder with SKILL.md, frontmatter name + description):',
    'claude  ~/.claude/skills/castellan/SKILL.md ($CLAUDE_CONFIG_DIR/skills), --project: .claude/skills/castellan/',
    'codex   $CODEX_HOME/skills/castellan/SKILL.md (default ~/.codex/skills), --project: .agents/skills/castellan/',
    'gemini  ~/.gemini/skills/castellan/SKILL.md, --project: .gemini/skills/castellan/',
    'pi      ~/.pi/agent/skills/castellan/SKILL.md ($PI_CODING_AGENT_DIR/skills), --project: .pi/skills/castellan/',
    '',
    'The installed copy tells the agent how to run this checkout\'s CLI by absolute path (--use-path: plain `castellan`).',
    'An existing different copy is backed up (SKILL.md.castellan-backup-<time>); installing twice changes nothing.',
    'Restart running agents (pi: /reload, Gemini: /skills reload).',
  ].join('\n'),
  positionals: true,
  options: INSTALL_OPTIONS,
  run: async (ctx, { values, positionals }) => {
    const target = installTarget(values, positionals, ctx.env);
    if (typeof target === 'string') throw new UsageError(target);
    const { agents, scope, argv, dryRun } = target;
    const stamp = backupStamp();

    for (const agent of agents) {
      const r = installSkill(agent, scope, { home: ctx.paths.home, env: ctx.env, dir: String(values.dir ?? ctx.cwd), argv, dryRun, stamp });
      ctx.out(`${agent}: ${dryRun && r.action !== 'unchanged' ? `would be ${r.action}` : r.action} ${r.path}${r.backup ? ` (backup: ${r.backup})` : ''}`);
    }
    return EXIT.ok;
  },
});
