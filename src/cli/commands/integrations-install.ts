// `castellan integrations install AGENT...`: writes castellan's hook bridge into the agents' own settings (merging, idempotent, with backups).
import { describePlan, installTarget, INSTALL_OPTIONS } from '../../integrations/cli-support.js';
import { applyPlan, backupStamp, planInstall } from '../../integrations/install.js';
import { defineCommand, EXIT, UsageError } from '../define-command.js';

export default defineCommand({
  name: 'integrations install',
  usage: 'castellan integrations install claude|codex|gemini|pi|copilot|qwen|opencode|kilo|all... [--user|--project] [--dir DIR] [--dry-run] [--use-path]',
  summary: 'Install castellan\'s hook bridge into agents\' settings so their panes get exact state badges.',
  details: [
    'claude  ~/.claude/settings.json (or <project>/.claude/settings.json): one hook per mapped event',
    'codex   $CODEX_HOME/hooks.json (default ~/.codex; or <project>/.codex/hooks.json) + notify in config.toml (user only)',
    'gemini  ~/.gemini/settings.json (or <project>/.gemini/settings.json)',
    'pi      an extension: ~/.pi/agent/extensions/castellan.ts (or <project>/.pi/extensions/castellan.ts)',
    '',
    'Existing hooks stay; installing twice changes nothing; each changed file is backed up first',
    '(<file>.castellan-backup-<time>). Hooks run `node <this checkout>/bin/castellan.js hook AGENT EVENT`',
    'by absolute path, so they work whatever PATH the agent has; --use-path installs plain `castellan` instead.',
    '--project uses the current directory (or --dir). --dry-run shows what would change.',
  ].join('\n'),
  positionals: true,
  options: INSTALL_OPTIONS,
  run: async (ctx, { values, positionals }) => {
    const target = installTarget(values, positionals, ctx.env);
    if (typeof target === 'string') throw new UsageError(target);
    const { agents, scope, argv, dryRun } = target;

    const c = { home: ctx.paths.home, env: ctx.env, dir: String(values.dir ?? ctx.cwd), argv };
    // Plan everything first: a file castellan cannot read stops the whole run before anything is written.
    const plans = agents.map((a) => planInstall(a, scope, c));
    const stamp = backupStamp();
    for (const plan of plans) {
      const backups = dryRun ? {} : applyPlan(plan, stamp);
      for (const line of describePlan(plan, { dryRun, backups, detail: dryRun })) ctx.out(line);
    }
    return EXIT.ok;
  },
});
