// `castellan machine rename OLD NEW`.
import { nameProblem, updateProfiles } from '../../machines/index.js';
import { defineCommand, EXIT, UsageError } from '../define-command.js';

export default defineCommand({
  name: 'machine rename',
  usage: 'castellan machine rename OLD NEW',
  summary: 'Give a machine another name.',
  positionals: true,
  run: async (ctx, { positionals }) => {
    if (positionals.length !== 2) throw new UsageError('give OLD and NEW');
    const [from, to] = positionals;
    const bad = nameProblem(to);
    if (bad) throw new UsageError(bad);
    updateProfiles(ctx.paths.machinesFile, (all) => {
      if (!all.some((m) => m.name === from)) throw new UsageError(`no machine named ${JSON.stringify(from).slice(0, 80)}`);
      if (from !== to && all.some((m) => m.name === to)) throw new UsageError(`machine "${to}" exists already`);
      return all.map((m) => (m.name === from ? { ...m, name: to } : m));
    });
    ctx.out(`machine ${from} is now ${to}`);
    return EXIT.ok;
  },
});
