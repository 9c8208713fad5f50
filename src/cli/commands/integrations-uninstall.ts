// `castellan integrations uninstall AGENT...`: removes only castellan's own hook entries (commands running `castellan hook`).
import { describePlan, parseAgents, parseScope } from '../../integrations/cli-support.js';
import { applyPlan, backupStamp, planUninstall } from '../../integrations/install.js';
import { defineCommand, EXIT, UsageError } from '../define-command.js';

export default defineCommand({
  name: 'integrations uninstall',
  usage: 'castellan integrations uninstall claude|codex|gemini|pi|all... [--user|--project] [--dir DIR] [--dry-run]',
  summary: 'Remove castellan\'s hook entries from agents\' settings; everything else in those files stays.',
  details: 'Entries are recognised by their command (`castellan hook ...` or `.../castellan.js hook ...`); the Codex notify line by its marker; the pi extension by its header. Changed files are backed up first.',
  positionals: true,
  options: { user: { type: 'boolean' }, project: { type: 'boolean' }, dir: { type: 'string' }, 'dry-run': { type: 'boolean' } },
  run: async (ctx, { values, positionals }) => {
    const agents = parseAgents(positionals);
    if (typeof agents === 'string') throw new UsageError(agents);
    const scope = parseScope(values);
    if (scope !== 'user' && scope !== 'project') throw new UsageError(scope);
    const dryRun = !!values['dry-run'];
    const c = { home: ctx.paths.home, env: ctx.env, dir: String(values.dir ?? ctx.cwd) };
    const plans = agents.map((a) => planUninstall(a, scope, c));
    const stamp = backupStamp();
    for (const plan of plans) {
      const backups = dryRun ? {} : applyPlan(plan, stamp);
      for (const line of describePlan(plan, { dryRun, backups })) ctx.out(line);
    }
    return EXIT.ok;
  },
});
