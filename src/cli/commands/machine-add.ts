// `castellan machine add NAME TARGET [--session S]`: remember another host to reach over ssh (nothing secret is stored).
import { MAX_MACHINES, nameProblem, sessionProblem, targetProblem, updateProfiles } from '../../machines/index.js';
import { defineCommand, EXIT, UsageError } from '../define-command.js';

export default defineCommand({
  name: 'machine add',
  usage: 'castellan machine add NAME TARGET [--session S]',
  summary: 'Remember a machine: NAME for TARGET, anything ssh takes (a Host from ~/.ssh/config, user@host, ssh://user@host:2222).',
  details: [
    'Only the name, the target and the remote session are stored (~/.castellan/machines.json): keys, agents, ports and',
    'ControlMaster stay in your ssh config. The remote machine needs castellan installed and a server running there.',
  ].join('\n'),
  positionals: true,
  options: { session: { type: 'string' } },
  run: async (ctx, { values, positionals }) => {
    if (positionals.length !== 2) throw new UsageError('give NAME and TARGET');
    const [name, target] = positionals;
    const session = typeof values.session === 'string' ? values.session : undefined;
    // `--session` is also the global flag: here it names the remote session, and the local one is irrelevant.
    const bad = nameProblem(name) ?? targetProblem(target) ?? (session !== undefined ? sessionProblem(session) : undefined);
    if (bad) throw new UsageError(bad);
    updateProfiles(ctx.paths.machinesFile, (all) => {
      if (all.some((m) => m.name === name)) throw new UsageError(`machine "${name}" exists already (castellan machine remove ${name} first)`);
      if (all.length >= MAX_MACHINES) throw new UsageError(`at most ${MAX_MACHINES} machines`);
      return [...all, { name, target, ...(session ? { session } : {}) }];
    });
    ctx.out(`machine ${name}: ${target}${session ? ` (session ${session})` : ''}`);
    return EXIT.ok;
  },
});
